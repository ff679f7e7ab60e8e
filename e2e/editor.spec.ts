/** The editing loop: compile as you type, markers on the right line, disassembly linked to the C source, examples. */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';

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
  expect(m.message).toMatch(/this_is_not_declared/);
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
