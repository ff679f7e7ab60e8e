/** XDP_REDIRECT in the app: the redirect example's machine, its bulk queues and target ring; driver model choice. */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';
import { RedirectPanel } from './pages/RedirectPanel';

test('xdp_redirect_map: the devmap panel shows bulk queues filling, flushes and the target tx ring moving', async ({ page }, testInfo) => {
  // Stepping packet by packet through the worker is many round trips on a shared 2-core machine.
  test.setTimeout(150_000);
  const lab = new LabPage(page);
  const redirect = new RedirectPanel(page);
  await lab.open();
  await expect(redirect.root).toHaveCount(0);
  await lab.examples.selectOption('xdp_redirect_map');
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_redirect_map_prog', { timeout: 20_000 });
  await expect(redirect.root).toBeVisible();
  await expect(redirect.target).toHaveText('i40e port 2');
  await redirect.openSettings();
  await expect(redirect.driverLegend).toContainText('Driver: i40e');
  await lab.sim.run();
  // The REDIRECT counter moves, frames are flushed in bulks and sent by the target port.
  const r0 = await lab.sim.counter('actions', 'REDIRECT');
  await expect.poll(() => lab.sim.counter('actions', 'REDIRECT')).toBeGreaterThan(r0 + 200);
  await expect.poll(() => redirect.counter('sent')).toBeGreaterThan(100);
  await expect.poll(() => redirect.framesFlushed()).toBeGreaterThan(100);
  expect(await redirect.counter('errors')).toBe(0);
  await expect(redirect.txRing()).toBeVisible();
  // Step packet by packet until frames wait in CPU 0's bulk queue while earlier ones sit on the target's tx ring.
  await lab.sim.pause();
  let seen = { bulk: false, ring: false };
  let both = false;
  for (let i = 0; i < 200 && !both; i++) {
    const e = await lab.sim.events();
    await lab.sim.stepPacket.click();
    await expect.poll(() => lab.sim.events()).toBeGreaterThan(e);
    // One read of the queue: its count and the filled slots drawn agree.
    const { n, full } = await redirect.bulkState(0);
    expect(full).toBe(n);
    const onRing = await redirect.txRingHolds();
    seen = { bulk: seen.bulk || n > 0, ring: seen.ring || onRing };
    both = n > 0 && onRing;
  }
  expect(seen).toEqual({ bulk: true, ring: true });
  await redirect.show();
  await testInfo.attach('redirect view', { body: await page.screenshot(), contentType: 'image/png' });

  // xdp1 has no setup: back to the default machine, and the panel goes away.
  await lab.examples.selectOption('xdp1');
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_prog1', { timeout: 20_000 });
  await expect(redirect.root).toHaveCount(0);
  await expect(redirect.driverLegend).toContainText('Driver: mlx4');
});

test('driver model: vmxnet3 shows its page_pool and runs; a devmap target on it is refused with the reason', async ({ page }) => {
  const lab = new LabPage(page);
  const redirect = new RedirectPanel(page);
  await lab.open();
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_prog1', { timeout: 20_000 });
  await redirect.openSettings();
  await expect(redirect.driverLegend).toContainText('Driver: mlx4');
  await redirect.chooseDriver('vmxnet3');
  await expect(redirect.driverLegend).toContainText('Driver: vmxnet3');
  await expect(page.getByTestId('hw-profile')).toHaveValue('seed2023-esxi-vmxnet3');
  await expect(redirect.gauge('page-pool')).toBeVisible();
  await expect(redirect.gauge('page-cache')).toHaveCount(0);
  await lab.sim.run();
  const d0 = await lab.sim.counter('actions', 'DROP');
  await expect.poll(() => lab.sim.counter('actions', 'DROP')).toBeGreaterThan(d0 + 100);
  await expect.poll(() => lab.sim.counter('counters', 'rx_packets')).toBeGreaterThan(100);

  await redirect.chooseRedirect('devmap-i40e');
  await expect(redirect.settingsError).toContainText("redirect target 'devmap-i40e' is modelled on the mlx4 and i40e drivers only");
  // Refused: the select shows the running machine, which keeps running.
  await expect(page.getByTestId('redirect')).toHaveValue('none');
  const d1 = await lab.sim.counter('actions', 'DROP');
  await expect.poll(() => lab.sim.counter('actions', 'DROP')).toBeGreaterThan(d1 + 100);
});

test('xdp_redirect_cpu: a cpumap on vmxnet3, bulks of 8 handed to the remote CPU', async ({ page }) => {
  const lab = new LabPage(page);
  const redirect = new RedirectPanel(page);
  await lab.open();
  await lab.examples.selectOption('xdp_redirect_cpu');
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_redirect_cpu_prog', { timeout: 20_000 });
  await expect(redirect.root).toHaveAttribute('data-kind', 'cpumap');
  await expect(redirect.bulk(0)).toHaveAttribute('data-size', '8');
  await expect(redirect.txRing()).toHaveCount(0);
  await lab.sim.run();
  await expect.poll(() => redirect.counter('remote_dropped')).toBeGreaterThan(100);
  expect(await redirect.framesFlushed()).toBeGreaterThan(0);
  expect(await redirect.counter('errors')).toBe(0);
});
