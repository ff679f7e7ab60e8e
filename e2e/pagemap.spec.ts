/** The page map: every page of host memory by location, live while the default example runs. */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';
import { PageMap } from './pages/PageMap';

const sum = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);

test('the page map shows every page by location, and its counts move with the traffic', async ({ page }, testInfo) => {
  const lab = new LabPage(page);
  const map = new PageMap(page);
  await lab.open();
  await map.show();
  const total = await map.total();
  expect(total).toBeGreaterThanOrEqual(64);

  const first = await map.counts();
  expect(sum(first)).toBe(total);
  expect(Object.keys(first)).toEqual(expect.arrayContaining(['free', 'rx_ring', 'page_cache', 'tx_ring']));

  // xdp1 drops: pages cycle between the rx ring, the CPU and the page cache, so the counts change.
  await expect.poll(async () => JSON.stringify(await map.counts()), { timeout: 20_000 }).not.toBe(JSON.stringify(first));
  const later = await map.counts();
  expect(sum(later)).toBe(total);
  expect(later.rx_ring).toBeGreaterThan(0);

  // Paused, the pages the last snapshot moved stay lit: what the screenshots show.
  await lab.sim.pause();

  // The grid is drawn: one colour at least per location that holds pages (which locations those are at
  // the pause depends on where the traffic stood: xdp1 can leave pages only on the rx ring and the free list).
  const occupied = Object.values(await map.counts()).filter((n) => n > 0).length;
  expect(occupied).toBeGreaterThanOrEqual(2);
  await expect.poll(() => map.distinctColours()).toBeGreaterThanOrEqual(occupied);

  // Hovering a cell names the page and where it is, in the legend's words.
  await map.hoverPage(0);
  await expect(map.hover).toContainText(/^page 0 \(pfn 0x0, 0 KiB in\): /);
  const labels = await map.legend.locator('li').allTextContents();
  const where = (await map.hover.textContent())!.replace(/^page 0 \(pfn 0x0, 0 KiB in\): /, '');
  expect(labels.some((l) => l.startsWith(where))).toBe(true);

  await testInfo.attach('page-map-light', { body: await map.screenshot(), contentType: 'image/png' });
  await page.getByTestId('theme-toggle').click();
  await map.show();
  await testInfo.attach('page-map-dark', { body: await map.screenshot(), contentType: 'image/png' });
  await lab.screenshot(testInfo, 'page-map-in-app');

  // Step event by event until a page changes place (the legend's counts change: rx ring → driver/program
  // → page cache → rx ring); that snapshot draws the cells that moved at full brightness. (A whole NAPI
  // poll can bring every page back where it was, so single events are stepped.)
  // The lit cells are the ones the last snapshot moved, so they are looked for right after the step
  // that moved a page (on a loaded machine a later snapshot may already have dimmed an earlier one).
  const counts0 = JSON.stringify(await map.counts());
  let moved = false;
  let lit = 0;
  for (let i = 0; i < 80 && !(moved && lit > 0); i++) {
    const events = await lab.sim.events();
    await lab.sim.stepEvent.click();
    await expect.poll(() => lab.sim.events()).toBeGreaterThan(events);
    moved ||= JSON.stringify(await map.counts()) !== counts0;
    for (let k = 0; moved && lit === 0 && k < 5; k++) {
      lit = (await map.pixels()).lit;
      if (lit === 0) await page.waitForTimeout(200);
    }
  }
  expect(moved).toBe(true);
  expect(lit).toBeGreaterThan(0);

  // Closed, it keeps its place but draws nothing.
  await map.root.locator('summary').click();
  await expect(map.canvas).toHaveCount(0);
});
