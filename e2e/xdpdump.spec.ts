/** xdpdump in the browser: capture the program's runs, download pcapng and pcap, read them back. */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { LabPage } from './pages/LabPage';
import { readPcap, readPcapng } from '../src/net';

async function downloaded(page: Page, testid: string): Promise<{ name: string; bytes: Uint8Array }> {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testid).click()]);
  const path = await dl.path();
  return { name: dl.suggestedFilename(), bytes: new Uint8Array(readFileSync(path)) };
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

test('xdpdump: a capture of xdp2 downloads as pcapng with the verdict per packet, and as pcap, with the same frames', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.examples.selectOption('xdp2');
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_prog2');
  await lab.tab('inspector').click();
  await page.getByTestId('xdpdump-start').click();
  await expect(page.getByTestId('xdpdump-status')).toHaveAttribute('data-capturing', 'true');
  await lab.sim.run();
  await expect.poll(async () => {
    await page.getByTestId('xdpdump-refresh').click();
    return Number(await page.getByTestId('xdpdump-status').getAttribute('data-packets'));
  }).toBeGreaterThan(50);
  await lab.sim.pause();
  await page.getByTestId('xdpdump-stop').click();
  await expect(page.getByTestId('xdpdump-status')).toHaveAttribute('data-capturing', 'false');
  const count = Number(await page.getByTestId('xdpdump-status').getAttribute('data-packets'));
  expect(count).toBeGreaterThan(50);

  const ng = await downloaded(page, 'xdpdump-pcapng');
  expect(ng.name).toBe('xdpdump-xdp_prog2.pcapng');
  const r = readPcapng(ng.bytes);
  expect(r.interfaces.map((i) => i.name)).toEqual(['mlx4@entry', 'mlx4@exit']);
  expect(r.packets).toHaveLength(2 * count);
  // Checked in plain code and asserted once: a capture at full speed holds thousands of frames.
  let tx = 0;
  const wrong: string[] = [];
  for (let i = 0; i < r.packets.length; i += 2) {
    const [entry, exit] = [r.packets[i]!, r.packets[i + 1]!];
    if (!/^packet #\d+ rx queue 0 cpu 0: entry of xdp_prog2$/.test(entry.comments[0] ?? '')) wrong.push(`entry ${i}: ${entry.comments[0]}`);
    if (!/^packet #\d+: XDP_(TX|DROP|PASS) \(\d\) after \d+ instructions$/.test(exit.comments[0] ?? '')) wrong.push(`exit ${i}: ${exit.comments[0]}`);
    if (entry.data.length !== 60) wrong.push(`entry ${i}: ${entry.data.length} bytes`);
    if (exit.comments[0]?.includes('XDP_TX')) {
      tx++;
      // xdp2 swapped the Ethernet addresses; the rest is untouched.
      const swapped = hex(exit.data.subarray(0, 6)) === hex(entry.data.subarray(6, 12)) && hex(exit.data.subarray(6, 12)) === hex(entry.data.subarray(0, 6)) && hex(exit.data.subarray(12)) === hex(entry.data.subarray(12));
      if (!swapped) wrong.push(`packet ${i / 2}: MACs not swapped`);
    }
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(tx).toBeGreaterThan(0);

  const classic = await downloaded(page, 'xdpdump-pcap');
  expect(classic.name).toBe('xdpdump-xdp_prog2.pcap');
  const c = readPcap(classic.bytes);
  expect(c.records).toHaveLength(2 * count);
  expect(c.records.map((x) => hex(x.data))).toEqual(r.packets.map((x) => hex(x.data)));
});
