/** The app loads: the editor shows the default example and the engine worker answers. */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';

test('loads with the default example running at full speed, a live engine worker, and both themes', async ({ page }, testInfo) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const lab = new LabPage(page);
  await lab.open('/', { fullSpeed: true });
  await expect(lab.engineStatus).toContainText('engine: ready');
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

test('usable by keyboard: Alt shortcuts work from inside the editor, arrow keys move between panes', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open('/');
  await expect(page.getByTestId('attached')).toContainText('XDP:');
  await expect(lab.sim.runToggle).toHaveAttribute('aria-pressed', 'true');
  const source = await lab.source();
  // Focus the editor, then pause with Alt+R: the key reaches the app, not the program text.
  await lab.focusEditor();
  await page.keyboard.press('Alt+R');
  await expect(lab.sim.runToggle).toHaveAttribute('aria-pressed', 'false');
  expect(await lab.source()).toBe(source);
  // Alt+E steps one event: the event count moves by exactly one.
  const e0 = await lab.sim.settledEvents();
  await page.keyboard.press('Alt+E');
  await expect.poll(() => lab.sim.events()).toBe(e0 + 1);
  // Alt+B steps back to where it was.
  await page.keyboard.press('Alt+B');
  await expect.poll(() => lab.sim.events()).toBe(e0);
  // Alt+2 shows the verifier pane; arrow keys walk the tab list and focus follows.
  await page.keyboard.press('Alt+2');
  await expect(page.getByTestId('tab-verifier')).toHaveAttribute('aria-selected', 'true');
  await page.getByTestId('tab-verifier').focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('tab-cfg')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('tab-cfg')).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('tab-inspector')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('tab-inspector')).toBeFocused();
  await page.keyboard.press('End');
  await expect(page.getByTestId('tab-console')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('tab-disasm')).toHaveAttribute('aria-selected', 'true');
  // Alt+R again resumes the traffic.
  await page.keyboard.press('Alt+R');
  await expect(lab.sim.runToggle).toHaveAttribute('aria-pressed', 'true');
  expect(await lab.source()).toBe(source);
});

test('the divider between the simulation and the panes resizes by keyboard and by drag, and is kept', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open('/');
  const splitter = page.getByTestId('splitter');
  const simHeight = () => page.getByTestId('sim').evaluate((e) => e.getBoundingClientRect().height);
  const h0 = await simHeight();
  await splitter.focus();
  await page.keyboard.press('End');
  await expect(splitter).toHaveAttribute('aria-valuenow', '85');
  await expect.poll(simHeight).toBeGreaterThan(h0 + 50);
  await page.keyboard.press('ArrowUp');
  await expect(splitter).toHaveAttribute('aria-valuenow', '80');
  // Drag it up to about a third of the column.
  const right = (await page.locator('#right').boundingBox())!;
  const box = (await splitter.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + 3);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2, right.y + right.height * 0.33, { steps: 5 });
  await page.mouse.up();
  const v = Number(await splitter.getAttribute('aria-valuenow'));
  expect(v).toBeGreaterThanOrEqual(30);
  expect(v).toBeLessThanOrEqual(36);
  await page.reload();
  await expect(page.getByTestId('splitter')).toHaveAttribute('aria-valuenow', String(v));
});

// The first screen's order of work (src/ui/App.tsx, src/ui/controller.ts): the simulation is drawn first;
// only then are Monaco's chunk fetched and the first build asked for, and both still come.
test('the simulation is drawn before the editor loads and before the first build starts', async ({ page }) => {
  await page.addInitScript(() => {
    const w = window as unknown as { __simShownAt?: number };
    new MutationObserver(() => {
      if (w.__simShownAt === undefined && Number(document.querySelector('[data-testid=sim-clock]')?.getAttribute('data-packets') ?? 0) > 0) w.__simShownAt = performance.now();
    }).observe(document, { subtree: true, childList: true, attributes: true });
  });
  const lab = new LabPage(page);
  await lab.open('/', { fullSpeed: true });
  await expect(lab.buildStatus).not.toHaveText('starting…');
  const t = await page.evaluate(() => {
    const w = window as unknown as { __simShownAt?: number; __xdpLab: { timeline?: { kind: string; t: number }[] } };
    const monaco = performance.getEntriesByType('resource').find((e) => /\/assets\/monaco-[^/]*\.js$/.test(e.name));
    return { sim: w.__simShownAt ?? null, monaco: monaco?.startTime ?? null, build: w.__xdpLab.timeline?.find((m) => m.kind === 'requested')?.t ?? null };
  });
  // Drawn before the editor's and the build's fallbacks (3 s, when the simulation never draws) could fire.
  expect(t.sim, 'the simulation is drawn within 3 s').not.toBeNull();
  expect(t.sim!).toBeLessThan(3000);
  expect(t.monaco).not.toBeNull();
  expect(t.build).not.toBeNull();
  expect(t.monaco!).toBeGreaterThan(t.sim!);
  expect(t.build!).toBeGreaterThan(t.sim!);
});
