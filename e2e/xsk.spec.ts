/** The AF_XDP view: bind an xdpsock socket from its settings control, watch its UMEM chunks go round the four rings. */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';
import { XskPanel } from './pages/XskPanel';

// Tall enough that the simulation pane shows the whole AF_XDP section for the screenshots.
test.use({ viewport: { width: 1600, height: 2000 } });

test('AF_XDP zero-copy: the UMEM grid and the fill, rx, tx and completion rings appear and move; copy mode posts no chunks on the NIC', async ({ page }, testInfo) => {
  // A long story on a shared CI machine: two machines built, two runs, three screenshots.
  test.slow();
  const lab = new LabPage(page);
  const xsk = new XskPanel(page);
  await lab.open();
  // The xdpsock example brings its machine: an i40e with a zero-copy socket on queue 0.
  await lab.examples.selectOption('xdpsock');
  await expect(lab.buildStatus).toContainText('verified');
  await expect(xsk.panel).toHaveAttribute('data-mode', 'zc');
  // The control takes the socket away again, and puts it back.
  await xsk.setMode('off');

  await xsk.setMode('zc');
  await expect(page.getByTestId('attached')).toHaveText('XDP: xdp_sock_prog');
  await expect(xsk.grid).toBeVisible();
  await expect(xsk.grid).toHaveAttribute('data-chunks', '512');
  for (const kind of ['fill', 'xsk_rx', 'xsk_tx', 'completion'] as const) await expect(xsk.ring(kind).locator('canvas')).toBeVisible();

  // Traffic runs: frames reach the socket, are forwarded and completed, and xdpsock recycles completions to the fill ring.
  await lab.sim.run();
  await expect.poll(() => xsk.counter('rx'), { timeout: 20_000 }).toBeGreaterThan(500);
  await expect.poll(() => xsk.counter('completion')).toBeGreaterThan(500);
  await lab.sim.pause();
  // Paused, one snapshot: every chunk has one owner, and the rings hold what the grid says they hold.
  const owners = await xsk.owners();
  expect(Object.values(owners).reduce((a, b) => a + b, 0)).toBe(512);
  expect(owners.nic_rx).toBeGreaterThan(0);
  expect(await xsk.entries('fill')).toBe(owners.fill);
  const cqWaiting = await xsk.entries('completion');
  expect(cqWaiting).toBe(owners.completion);
  // xdpsock posted 256 addresses and puts each completion it reads back on the fill ring, so the fill ring's producer
  // is 256 ahead of the completions read: those written minus those still waiting on the completion ring (a pause can
  // land while the kernel has completed a frame xdpsock has not reaped yet). The counter table may draw the paused
  // snapshot a frame after the rings: read it once it has settled.
  await expect.poll(async () => (await xsk.counter('fill')) - (await xsk.counter('completion'))).toBe(256 - cqWaiting);
  await expect.poll(async () => (await xsk.pointer('fill', 'prod')) - ((await xsk.counter('fill')) % 256)).toBe(0);
  await testInfo.attach('xsk-zero-copy', { body: await xsk.section.screenshot(), contentType: 'image/png' });
  await lab.screenshot(testInfo, 'xsk-zero-copy-page');

  // Copy mode: the driver's own pages are on the NIC descriptors; frames still reach the socket, copied.
  await xsk.setMode('copy');
  await lab.sim.run();
  await expect.poll(() => xsk.counter('rx'), { timeout: 20_000 }).toBeGreaterThan(100);
  await lab.sim.pause();
  expect(await xsk.owned('nic_rx')).toBe(0);
  // The chunks the NIC held went back to user space; every chunk still has exactly one owner.
  // (How many sit in the fill ring at the pause depends on where the pause lands.)
  const copyOwners = await xsk.owners();
  expect(Object.values(copyOwners).reduce((a, b) => a + b, 0)).toBe(512);
  expect(copyOwners.nic_rx).toBe(0);
  await page.getByTestId('theme-toggle').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await testInfo.attach('xsk-copy-dark', { body: await xsk.section.screenshot(), contentType: 'image/png' });

  // xdpsock -r (rxdrop): frames are received and dropped, nothing is sent.
  await page.getByTestId('xsk-app-select').selectOption('rxdrop');
  await expect(xsk.panel).toHaveAttribute('data-app', 'rxdrop');
  await lab.sim.run();
  await expect.poll(() => xsk.counter('rx'), { timeout: 20_000 }).toBeGreaterThan(100);
  await lab.sim.pause();
  expect(await xsk.counter('tx')).toBe(0);
  expect(await xsk.counter('completion')).toBe(0);

  await xsk.setMode('off');
  await expect(xsk.mode).toHaveValue('off');
  await expect(page.getByTestId('xsk-app-select')).toBeDisabled();
});
