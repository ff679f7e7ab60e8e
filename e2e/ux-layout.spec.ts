/**
 * Layout: at 1280×720 and 1920×1080 the machine's rings and its counters are
 * on screen without scrolling, the page never scrolls sideways (down to
 * 1024 px), and the editor / simulation boundary can be dragged.
 */
import { expect, test, type Page } from '@playwright/test';
import { LabPage } from './pages/LabPage';

async function inViewport(page: Page, testid: string): Promise<void> {
  const vp = page.viewportSize()!;
  const box = await page.getByTestId(testid).first().boundingBox();
  expect(box, `${testid} laid out`).not.toBeNull();
  expect(box!.x, `${testid} left edge`).toBeGreaterThanOrEqual(0);
  expect(box!.y, `${testid} top edge`).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width, `${testid} right edge`).toBeLessThanOrEqual(vp.width);
  expect(box!.y + box!.height, `${testid} bottom edge`).toBeLessThanOrEqual(vp.height);
  // And not hidden under the simulation's own scroll: inside the sim's visible box.
  const sim = (await page.getByTestId('sim').boundingBox())!;
  expect(box!.y + box!.height, `${testid} inside the visible simulation area`).toBeLessThanOrEqual(sim.y + sim.height + 1);
}

for (const [width, height] of [[1280, 720], [1920, 1080]] as const) {
  test(`at ${width}×${height} the rings and counters are on screen without scrolling`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const lab = new LabPage(page);
    await lab.open('/');
    await expect(page.getByTestId('attached')).toContainText('XDP:');
    await expect(page.getByTestId('ring-rx0')).toBeVisible();
    for (const id of await page.locator('.rings [data-testid^="ring-"][data-kind]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.testid!))) await inViewport(page, id);
    await inViewport(page, 'actions');
    await inViewport(page, 'counters');
    await inViewport(page, 'run-toggle');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    expect(await page.getByTestId('sim').evaluate((e) => e.scrollTop)).toBe(0);
  });
}

test('at 1280×720 every example keeps its rings, actions, counters and gauges on screen without scrolling', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const lab = new LabPage(page);
  await lab.open('/');
  const examples = await lab.examples.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
  expect(examples.length).toBeGreaterThanOrEqual(8);
  for (const id of examples) {
    await lab.examples.selectOption(id);
    await expect(page.getByTestId('attached')).toBeVisible();
    await expect(page.getByTestId('ring-rx0')).toBeVisible();
    for (const ring of await page.locator('.rings [data-testid^="ring-"][data-kind]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.testid!))) await inViewport(page, ring);
    await inViewport(page, 'actions');
    await inViewport(page, 'counters');
    const gauges = await page.locator('.sim-grid .gauge[data-testid^="gauge-"]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.testid!));
    expect(gauges, `${id}: the free pages gauge at least`).toContain('gauge-free-pages');
    for (const g of gauges) await inViewport(page, g);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${id}: no sideways scroll`).toBeLessThanOrEqual(1280);
    // The page itself never scrolls: a refusal's explanation above the editor shrinks the editor instead.
    expect(await page.evaluate(() => document.documentElement.scrollHeight), `${id}: no page scroll`).toBeLessThanOrEqual(720);
  }
  // The same with the lessons open above the explanation and the editor.
  await lab.examples.selectOption('missing-bounds-check');
  await page.getByTestId('lessons-toggle').click();
  await expect(page.getByTestId('explain-bar')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollHeight), 'lessons open: no page scroll').toBeLessThanOrEqual(720);
  const editor = (await page.getByTestId('editor').boundingBox())!;
  expect(editor.y + editor.height).toBeLessThanOrEqual(720);
  expect(editor.height).toBeGreaterThanOrEqual(100);
});

test('at 1280×720 an AF_XDP machine shows its socket rings and totals beside the NIC rings, without scrolling', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const lab = new LabPage(page);
  await lab.open('/');
  await lab.examples.selectOption('xdpsock');
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_sock_prog');
  for (const kind of ['fill', 'xsk_rx', 'xsk_tx', 'completion']) await inViewport(page, `xsk-mini-${kind}`);
  await inViewport(page, 'xsk-strip-totals');
  await inViewport(page, 'counters');
  // The strip is live: frames reach the socket and l2fwd sends them back.
  await expect(page.getByTestId('xsk-strip-totals')).toContainText(/socket rx [1-9]/);
  await expect(page.getByTestId('xsk-strip-totals')).toContainText(/tx [1-9]/);
  expect(await page.getByTestId('sim').evaluate((e) => e.scrollTop)).toBe(0);
});

test('no sideways scroll at 1024 px; the editor / simulation divider drags and keys', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 720 });
  const lab = new LabPage(page);
  await lab.open('/');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024);
  // The chart and the profile are too wide beside the counters here: they go under the machine, whole, not clipped.
  const sim = (await page.getByTestId('sim').boundingBox())!;
  for (const id of ['pps-chart', 'profile']) {
    const box = (await page.getByTestId(id).boundingBox())!;
    expect(box.x + box.width, `${id} right edge at 1024 px`).toBeLessThanOrEqual(sim.x + sim.width);
  }
  await page.setViewportSize({ width: 1280, height: 720 });
  const v = page.getByTestId('splitter-v');
  const editorWidth = () => page.getByTestId('editor').evaluate((e) => e.getBoundingClientRect().width);
  const w0 = await editorWidth();
  await v.focus();
  await page.keyboard.press('ArrowRight');
  await expect.poll(editorWidth).toBeGreaterThan(w0 + 30);
  const box = (await v.boundingBox())!;
  await page.mouse.move(box.x + 3, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(1280 * 0.3, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  const share = Number(await v.getAttribute('aria-valuenow'));
  expect(share).toBeGreaterThanOrEqual(27);
  expect(share).toBeLessThanOrEqual(33);
  await page.reload();
  await expect(page.getByTestId('splitter-v')).toHaveAttribute('aria-valuenow', String(share));
});

test('an out-of-range MTU is refused and not left in the field', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open('/');
  await page.getByTestId('settings').evaluate((d) => ((d as HTMLDetailsElement).open = true));
  const mtu = page.getByTestId('mtu');
  const before = await mtu.inputValue();
  await mtu.fill('20000');
  await mtu.blur();
  await expect(page.getByTestId('settings-error')).toContainText('MTU must be between');
  await expect(mtu).toHaveValue(before);
});

test('refusals are shown beside the settings with a one-click nearest accepted setting', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open('/');
  await expect(page.getByTestId('attached')).toContainText('XDP:');
  await page.getByTestId('settings').evaluate((d) => ((d as HTMLDetailsElement).open = true));
  // An MTU XDP cannot take: the reason and the largest MTU the driver accepts, one click away.
  const mtu = page.getByTestId('mtu');
  await mtu.fill('9000');
  await mtu.blur();
  const offer = page.getByTestId('settings-fix').or(page.getByTestId('detach-fix'));
  await expect(offer).toHaveText(/^Use MTU \d+$/);
  const n = Number((await offer.textContent())!.replace(/\D/g, ''));
  expect(n).toBeGreaterThan(1000);
  expect(n).toBeLessThan(9000);
  await offer.click();
  await expect(mtu).toHaveValue(String(n));
  await expect(page.getByTestId('attached')).toContainText('XDP:');
  await expect(page.getByTestId('attached')).not.toContainText('no XDP program');
  // mlx4 has no generic XDP modelled: choosing it in generic mode offers native mode.
  await page.getByTestId('nic').selectOption('vmxnet3');
  await page.getByTestId('xdp-mode').selectOption('generic');
  await expect(page.getByTestId('xdp-mode')).toHaveValue('generic');
  await page.getByTestId('nic').selectOption('mlx4');
  await expect(page.getByTestId('settings-error')).toContainText('generic');
  await page.getByTestId('settings-fix').click();
  await expect(page.getByTestId('nic')).toHaveValue('mlx4');
  await expect(page.getByTestId('xdp-mode')).toHaveValue('native');
  await expect(page.getByTestId('settings-error')).toBeHidden();
});
