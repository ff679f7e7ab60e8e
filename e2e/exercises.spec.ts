/**
 * Teaching: a learner opens an exercise, submits the starter and sees red
 * tests, reveals hints, types the fix and sees green, reloads and finds the
 * progress; a rejected program shows the kernel's message beside an
 * explanation, and "Apply fix" makes it verify (and can be undone).
 */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';
import { ExercisesPanel } from './pages/ExercisesPanel';

test('an exercise: starter fails, hints, the fix passes, progress survives a reload', async ({ page }, testInfo) => {
  const lab = new LabPage(page);
  const ex = new ExercisesPanel(page);
  await lab.open('/');
  await ex.open();
  await ex.choose('ipv4-only');
  await expect.poll(() => lab.source()).toContain('/* TODO */');

  // The starter passes everything: the frames that should be dropped fail, naming the packet.
  await ex.submit();
  await expect(ex.summary).toHaveText(/of 4 tests pass/);
  await expect(page.getByTestId('verdicts')).toHaveAttribute('data-pass', 'false');
  await expect(ex.verdicts.filter({ hasText: 'packet 2 (ARP request): expected XDP_DROP, got XDP_PASS' })).toBeVisible();
  await lab.screenshot(testInfo, 'exercise-red');
  await page.screenshot({ path: 'test-results/exercise-red.png' });

  // Hints come one at a time.
  await ex.showHint();
  await expect(ex.hints).toHaveCount(1);
  await ex.showHint();
  await expect(ex.hints).toHaveCount(2);
  await expect(ex.panel.getByTestId('exercise-hint')).toHaveCount(0);

  // Type the fix.
  const src = await lab.source();
  await lab.setSource(src.replace('\t/* TODO */\n\treturn XDP_PASS;', '\tif ((void *)(eth + 1) > data_end)\n\t\treturn XDP_DROP;\n\treturn eth->h_proto == bpf_htons(ETH_P_IP) ? XDP_PASS : XDP_DROP;'));
  await expect.poll(() => lab.source()).toContain('bpf_htons(ETH_P_IP) ? XDP_PASS');
  await ex.submit();
  await expect(ex.summary).toHaveText('All 4 tests pass.');
  await expect(page.getByTestId('exercise-solution')).toBeVisible();
  await expect(page.getByTestId('exercise-ipv4-only')).toHaveAttribute('data-passed', 'true');

  // Reload: passed, hints and the open exercise are kept.
  await page.reload();
  await expect(lab.editor.locator('.monaco-editor')).toBeVisible({ timeout: 30_000 });
  await ex.open();
  await expect(ex.exercise).toHaveAttribute('data-id', 'ipv4-only');
  await expect(page.getByTestId('exercise-ipv4-only')).toHaveAttribute('data-passed', 'true');
  await expect(ex.hints).toHaveCount(2);
  await expect(page.getByTestId('exercise-progress')).toHaveText(/^1 of \d+ passed$/);
});

test('a rejected program is explained beside the kernel message, and Apply fix makes it verify', async ({ page }, testInfo) => {
  const lab = new LabPage(page);
  const ex = new ExercisesPanel(page);
  await lab.open('/');
  await lab.examples.selectOption('missing-bounds-check');
  await expect(ex.explain).toHaveAttribute('data-state', 'rejected', { timeout: 30_000 });
  await expect(page.getByTestId('explain-kernel')).toContainText('invalid access to packet');
  await expect(page.getByTestId('explain-summary')).toContainText(/only 0 bytes past that pointer/);
  await expect(page.getByTestId('explain-fix')).toContainText('data_end');
  // The failing line is highlighted in the editor.
  await expect(lab.editor.locator('.explain-error-line')).toHaveCount(1);
  await lab.screenshot(testInfo, 'explanation');
  await page.screenshot({ path: 'test-results/explanation.png' });

  const before = await lab.source();
  await page.getByTestId('explain-apply').click();
  await expect(ex.explain).toHaveAttribute('data-state', 'fixed', { timeout: 30_000 });
  await expect(page.getByTestId('attached')).not.toContainText('detached', { timeout: 30_000 });
  expect(await lab.source()).not.toBe(before);

  // Undo brings the rejected program back.
  await page.getByTestId('explain-undo').click();
  await expect.poll(() => lab.source()).toBe(before);
  await expect(ex.explain).toHaveAttribute('data-state', 'rejected', { timeout: 30_000 });
});
