/** The editing loop: compile as you type, markers on the right line, disassembly linked to the C source, completion of the headers' names. */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';
import { Suggestions } from './pages/Suggestions';

test('a compile error shows as a marker on its line, and fixing it clears it', async ({ page }, testInfo) => {
  const lab = new LabPage(page);
  await lab.open();
  await expect(lab.buildStatus).toContainText('insns');
  const good = await lab.source();
  const lines = good.split('\n');
  const at = lines.findIndex((l) => l.includes('int xdp_prog1(')) + 2; // first line of the body, 0-based
  const bad = [...lines.slice(0, at), '\tthis_is_not_declared = 1;', ...lines.slice(at)].join('\n');
  await lab.setSource(bad);
  await expect.poll(async () => (await lab.markers()).filter((m) => m.severity === 'Error').map((m) => m.line)).toEqual([at + 1]);
  const [m] = await lab.markers();
  expect(m?.message).toMatch(/this_is_not_declared/);
  await expect(lab.buildStatus).toHaveClass(/error/);
  await lab.gotoLine(at + 1); // Monaco renders only the lines in view
  await expect(lab.editor.locator('.squiggly-error').first()).toBeVisible();
  await lab.screenshot(testInfo, 'compile-error-marker');

  await lab.setSource(good);
  await expect.poll(async () => (await lab.markers()).length).toBe(0);
  await expect(lab.buildStatus).toContainText('insns');
});

test('clicking an instruction highlights its C line, and a C line highlights its instructions', async ({ page }, testInfo) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.tab('disasm').click();
  const insn = page.getByTestId('insn-0');
  await expect(insn).toBeVisible();
  const line = Number(await insn.getAttribute('data-line'));
  expect(line).toBeGreaterThan(0);
  await insn.click();
  await expect(insn).toHaveClass(/selected/);
  await expect.poll(() => lab.linkedLine()).toBe(line);
  expect((await lab.source()).split('\n')[line - 1]).toContain('data_end');

  // The other way: put the cursor on a C line; its instructions light up.
  await lab.gotoLine(line);
  await expect(page.locator(`.disasm .insn.linked[data-line="${line}"]`).first()).toBeVisible();
  await lab.screenshot(testInfo, 'disassembly-linked');
});

test('completion offers the headers\' names: bpf_map_lo → bpf_map_lookup_elem with its prototype; ctx-> → xdp_md\'s fields', async ({ page }, testInfo) => {
  const lab = new LabPage(page);
  const suggest = new Suggestions(page);
  await lab.open();
  await expect(lab.buildStatus).toContainText('insns');
  const lines = (await lab.source()).split('\n');
  const at = lines.lastIndexOf('\treturn rc;') + 1; // 1-based
  expect(at).toBeGreaterThan(0);
  await lab.gotoLine(at);
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('bpf_map_lo', { delay: 30 });
  const lookup = suggest.row('bpf_map_lookup_elem');
  await expect(lookup).toBeVisible();
  await expect(suggest.focused).toContainText('void *bpf_map_lookup_elem(void *map, const void *key)');
  await lab.screenshot(testInfo, 'completion-helper');
  await suggest.accept();
  await expect.poll(async () => (await lab.source()).split('\n')[at]).toBe('\tbpf_map_lookup_elem');

  // After ctx-> (declared `struct xdp_md *ctx`): xdp_md's fields, with their types.
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('ctx->', { delay: 30 });
  await expect(suggest.row('ingress_ifindex')).toBeVisible();
  await expect(suggest.row('data_end')).toContainText('__u32 data_end');
  await expect(suggest.row('h_proto')).toHaveCount(0); // ethhdr's, not xdp_md's
  await page.keyboard.press('Escape');
});
