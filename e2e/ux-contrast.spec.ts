/**
 * Readability: axe-core's WCAG AA colour-contrast rule reports nothing in
 * the light theme or the dark one (the app as it opens: editor, machine,
 * disassembly pane).
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';

for (const theme of ['light', 'dark'] as const) {
  test(`no colour-contrast violations in the ${theme} theme`, async ({ page }) => {
    const lab = new LabPage(page);
    await lab.open('/');
    await expect(page.getByTestId('attached')).toContainText('XDP:');
    if ((await page.evaluate(() => document.documentElement.dataset.theme)) !== theme) await page.getByTestId('theme-toggle').click();
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
    await lab.sim.pause();
    const r = await new AxeBuilder({ page }).withRules(['color-contrast']).analyze();
    const bad = r.violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.any[0]?.message ?? ''}`));
    expect(bad, bad.join('\n')).toEqual([]);
  });
}
