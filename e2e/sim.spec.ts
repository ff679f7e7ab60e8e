/** The simulation view: running on open, stepping both ways, settings, pcap upload. */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';
import { buildPacket, writePcap } from '../src/net';

test('the rings run, and stepping goes one event forward, one back, one packet, one NAPI poll', async ({ page }, testInfo) => {
  const lab = new LabPage(page);
  await lab.open();
  await expect(lab.sim.runToggle).toHaveText(/Pause/);
  const first = await lab.sim.counter('counters', 'rx_packets');
  await expect.poll(() => lab.sim.counter('counters', 'rx_packets')).toBeGreaterThan(first + 100);
  await expect(lab.sim.ring('rx0')).toBeVisible();
  await expect(lab.sim.ring('tx0')).toBeVisible();
  // The rate chart's axes: time along the bottom, packets per second up the side, each with labelled ticks.
  const chart = page.getByTestId('pps-chart');
  await expect.poll(() => chart.locator('.axes > g:first-child .tick text').allTextContents()).toContainEqual(expect.stringMatching(/\d+(\.\d+)? ?(ns|µs|us|ms|s)$/));
  await expect.poll(() => chart.locator('.axes > g:last-child .tick text').allTextContents()).toContainEqual(expect.stringMatching(/^\d+(\.\d+)?[kMG]?$/));
  await lab.screenshot(testInfo, 'simulation-running');
  await lab.sim.pause();
  await lab.sim.reset.click();
  await expect.poll(() => lab.sim.events()).toBe(0);
  await expect(lab.sim.stepBack).toBeDisabled();
  await lab.sim.stepPacket.click();
  await expect.poll(() => lab.sim.events()).toBeGreaterThan(0);
  const e0 = await lab.sim.settledEvents();
  await lab.sim.stepEvent.click();
  await expect.poll(() => lab.sim.events()).toBe(e0 + 1);
  await lab.sim.stepBack.click();
  await expect.poll(() => lab.sim.events()).toBe(e0);
  const p0 = await lab.sim.counter('counters', 'rx_packets');
  await lab.sim.stepPacket.click();
  await expect.poll(() => lab.sim.events()).toBeGreaterThan(e0);
  expect(await lab.sim.counter('counters', 'rx_packets')).toBeGreaterThanOrEqual(p0);
  const polls = await lab.sim.counter('counters', 'polls');
  await lab.sim.stepNapi.click();
  await expect.poll(() => lab.sim.counter('counters', 'polls')).toBe(polls + 1);
});

test('a pcap upload replays its frames through the NIC', async ({ page }, testInfo) => {
  const lab = new LabPage(page);
  await lab.open();
  const frames = Array.from({ length: 40 }, (_, i) => buildPacket({ l3: 'ipv4', l4: 'udp', sport: 2000 + i, frameLen: 60 }));
  const pcap = writePcap(frames.map((data, i) => ({ tsNs: i * 1000, data })));
  await lab.sim.openSettings();
  await page.getByTestId('pcap-upload').setInputFiles({ name: 'forty.pcap', mimeType: 'application/vnd.tcpdump.pcap', buffer: Buffer.from(pcap) });
  await expect(lab.notice).toContainText('Replaying 40 packets from forty.pcap');
  await lab.sim.run();
  await expect.poll(() => lab.sim.counter('counters', 'offered')).toBe(40);
  await expect(page.getByTestId('sim-message')).toContainText('the traffic ran out');
  await lab.screenshot(testInfo, 'pcap-replayed');

  // A file that is not a pcap is refused with a reason.
  await page.getByTestId('pcap-upload').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('definitely not a capture') });
  await expect(lab.notice).toContainText('not a pcap file');
});
