/** The app loads: the editor shows the default example and the engine worker answers. */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';

test('loads with the default example running at full speed, a live engine worker, and both themes', async ({ page }, testInfo) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const lab = new LabPage(page);
  await lab.open('/', { fullSpeed: true });
  await expect(lab.engineStatus).toHaveText('engine: ready');
  // The worker's hello lists the examples; the first one fills the editor.
  const first = await lab.examples.locator('option').first().textContent();
  expect(first).toBeTruthy();
  await expect.poll(() => lab.source()).toContain('SEC("xdp")');
  await expect(lab.editor).toContainText('SEC');
  // The worker built the program: the build status is the worker's answer, not the placeholder.
  await expect(lab.buildStatus).not.toHaveText('starting…');
  // The default example is attached and traffic runs at full speed.
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_prog1');
  await expect(page.getByTestId('speed-label')).toHaveText('full speed');
  const d0 = await lab.sim.counter('actions', 'DROP');
  await expect.poll(() => lab.sim.counter('actions', 'DROP')).toBeGreaterThan(d0 + 1000);
  await lab.screenshot(testInfo, 'app-default');
  expect(errors).toEqual([]);

  // Themes: the toggle is a keyboard-reachable button.
  const before = await page.evaluate(() => document.documentElement.dataset.theme);
  await page.getByTestId('theme-toggle').focus();
  await page.keyboard.press('Enter');
  const after = await page.evaluate(() => document.documentElement.dataset.theme);
  expect(after).not.toBe(before);
  expect(['light', 'dark']).toContain(after);
  await lab.screenshot(testInfo, `app-${after}`);
});
