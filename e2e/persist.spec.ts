/** Persistence and sharing: reloads keep the program; share links round-trip; bad links degrade to the default. */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';

const EDITED = 'SEC("xdp")\nint edited_prog(struct xdp_md *ctx)\n{\n\treturn XDP_PASS; /* kept across reloads */\n}\n';

test('a reload keeps the edited program', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await expect(lab.engineStatus).toContainText('engine: ready');
  await lab.setSource(EDITED);
  await expect.poll(() => lab.source()).toBe(EDITED);
  await page.reload();
  await expect(lab.editor.locator('.monaco-editor')).toBeVisible();
  await expect.poll(() => lab.source()).toBe(EDITED);
  await expect(lab.editor).toContainText('edited_prog');
  await expect(lab.examples).toHaveValue('');
});

test('a share link opens the same program in a fresh browser', async ({ page, browser }, testInfo) => {
  const lab = new LabPage(page);
  await lab.open();
  await expect(lab.engineStatus).toContainText('engine: ready');
  await lab.setSource(EDITED);
  await expect.poll(() => lab.source()).toBe(EDITED);
  // The speed travels too (the page itself opened at ?speed=20000).
  await page.getByTestId('speed').fill('3'); // the 1,000 events/s stop
  await expect(page.getByTestId('speed-label')).toHaveText('1,000 events/s');
  const link = await lab.share();
  expect(link).toMatch(/#share=[A-Za-z0-9_-]+$/);
  await lab.screenshot(testInfo, 'share-link');
  await page.close(); // one app at a time: the CI machine is small

  // A new context has empty localStorage: only the link can carry the program.
  const ctx = await browser.newContext();
  const other = new LabPage(await ctx.newPage());
  await other.open(link);
  await expect.poll(() => other.source()).toBe(EDITED);
  await expect(other.notice).toContainText('Opened the program shared in the link');
  await expect(other.page.getByTestId('speed-label')).toHaveText('1,000 events/s');
  await ctx.close();
});

test('a truncated share link opens the default example with a message', async ({ page, browser }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.setSource(EDITED);
  await expect.poll(() => lab.source()).toBe(EDITED);
  const link = await lab.share();
  await page.close();
  const ctx = await browser.newContext();
  const other = new LabPage(await ctx.newPage());
  await other.open(link.slice(0, link.length - 25));
  await expect(other.notice).toContainText('This share link could not be opened');
  await expect.poll(() => other.source()).toContain('SEC("xdp")');
  expect(await other.source()).not.toBe(EDITED);
  await expect(other.examples).not.toHaveValue('');
  await ctx.close();
});
