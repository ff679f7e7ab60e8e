/** The maps pane takes keys and values as C values of the map's types (xdp1's rxcnt: __u32 key, long value). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';

test('map update in the key\'s C type: "0x11" and "6" for a __u32 key, "42" for the long value', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_prog1');
  await lab.tab('maps').click();
  await expect(page.getByTestId('map-rxcnt-11000000')).toBeVisible();
  await lab.sim.pause();
  // The pane names the types and offers them first.
  await expect(page.getByTestId('map-rxcnt')).toContainText('key unsigned int, 4 B');
  await expect(page.getByTestId('map-key-format')).toHaveValue('c');
  await expect(page.getByTestId('map-rxcnt-11000000').getByTestId('map-key-c')).toHaveText('17');

  await page.getByTestId('map-key').fill('6');
  await page.getByTestId('map-value').fill('42');
  await page.getByTestId('map-update').click();
  await expect(page.getByTestId('map-update-result')).toHaveText('updated');
  await expect(page.getByTestId('map-rxcnt-06000000')).toContainText('42');
  await expect(page.getByTestId('map-rxcnt-06000000').getByTestId('map-key-c')).toHaveText('6');

  // 0x11 is key 17 (IPPROTO_UDP): the same entry the program counts in.
  await page.getByTestId('map-key').fill('0x11');
  await page.getByTestId('map-value').fill('0x1000');
  await page.getByTestId('map-update').click();
  await expect(page.getByTestId('map-rxcnt-11000000')).toContainText('0010000000000000');
  await expect(page.getByTestId('map-rxcnt-11000000')).toContainText('4096');

  // Out of the type's range: said, nothing stored.
  await page.getByTestId('map-key').fill('4294967296');
  await page.getByTestId('map-update').click();
  await expect(page.getByTestId('map-update-result')).toHaveText('key: 4294967296 is out of range for unsigned int (0 to 4294967295)');
});

const STATS = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../tests/cases/maps/datarec_stats.c'), 'utf8');

test('a struct value (xdp-tutorial\'s struct datarec) is shown and updated as a C initializer', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.setSource(STATS);
  await expect(lab.buildStatus).toContainText('verified');
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_stats1');
  await lab.tab('maps').click();
  await expect(page.getByTestId('map-xdp_stats_map')).toContainText('value struct datarec, 16 B');
  // The program counts into key 2 (XDP_PASS): the value reads as the struct's members.
  await expect(page.getByTestId('map-xdp_stats_map-02000000').getByTestId('map-value-c')).toHaveText(/^\{ \.rx_packets = [1-9]\d*, \.rx_bytes = 0 \}$/);
  await lab.sim.pause();
  await expect(page.getByTestId('map-value')).toHaveAttribute('placeholder', '{ .rx_packets = 0, .rx_bytes = 0 }');
  await page.getByTestId('map-key').fill('4');
  await page.getByTestId('map-value').fill('{ .rx_bytes = 1500, .rx_packets = 1 }');
  await page.getByTestId('map-update').click();
  await expect(page.getByTestId('map-update-result')).toHaveText('updated');
  await expect(page.getByTestId('map-xdp_stats_map-04000000').getByTestId('map-value-c')).toHaveText('{ .rx_packets = 1, .rx_bytes = 1500 }');
  await expect(page.getByTestId('map-xdp_stats_map-04000000')).toContainText('0100000000000000dc05000000000000');
  // A member the struct does not have: named, nothing stored.
  await page.getByTestId('map-value').fill('{ .rx_pkts = 1 }');
  await page.getByTestId('map-update').click();
  await expect(page.getByTestId('map-update-result')).toHaveText('value: struct datarec has no member .rx_pkts (members: .rx_packets, .rx_bytes)');
});
