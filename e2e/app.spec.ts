/** The app loads: the editor shows the default example and the engine worker answers. */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';

test('loads with the default example and a live engine worker', async ({ page }, testInfo) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const lab = new LabPage(page);
  await lab.open();
  await expect(lab.engineStatus).toHaveText('engine: ready');
  // The worker's hello lists the examples; the first one fills the editor.
  const first = await lab.examples.locator('option').first().textContent();
  expect(first).toBeTruthy();
  await expect.poll(() => lab.source()).toContain('SEC("xdp")');
  await expect(lab.editor).toContainText('SEC');
  // The worker built the program: the build status is the worker's answer, not the placeholder.
  await expect(lab.buildStatus).not.toHaveText('starting…');
  await lab.screenshot(testInfo, 'app-light');
  expect(errors).toEqual([]);
});

test('theme toggles between light and dark and is keyboard reachable', async ({ page }, testInfo) => {
  const lab = new LabPage(page);
  await lab.open();
  const before = await page.evaluate(() => document.documentElement.dataset.theme);
  await page.getByTestId('theme-toggle').focus();
  await page.keyboard.press('Enter');
  const after = await page.evaluate(() => document.documentElement.dataset.theme);
  expect(after).not.toBe(before);
  expect(['light', 'dark']).toContain(after);
  await lab.screenshot(testInfo, `app-${after}`);
});
