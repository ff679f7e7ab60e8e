/** Verifier errors in the editor, and programs that run: xdp1 drops, xdp2 transmits. */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';

const HEAD = `#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int prog(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
`;
const CHECK = `	if ((void *)(eth + 1) > data_end)
		return XDP_PASS;
`;
const TAIL = `	if (eth->h_proto == 0)
		return XDP_PASS;
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
`;

test('a verifier error is marked on its line in the kernel\'s words; fixing it runs the program', async ({ page }, testInfo) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.setSource(HEAD + TAIL); // no bounds check before eth->h_proto (line 11)
  await expect.poll(async () => (await lab.markers()).filter((m) => m.source === 'verifier').map((m) => m.line)).toEqual([11]);
  const [m] = (await lab.markers()).filter((x) => x.source === 'verifier');
  expect(m?.message).toMatch(/^invalid access to packet, off=12 size=2, R\d\(id=0,off=12,r=0\)$/);
  await expect(lab.buildStatus).toContainText('rejected by the verifier');
  await expect(page.getByTestId('attached')).toContainText('the verifier rejected the program');
  await lab.tab('verifier').click();
  await expect(page.getByTestId('verifier-log')).toContainText('invalid access to packet, off=12 size=2');
  await expect(page.getByTestId('abstract-state')).toContainText('R1');
  await lab.screenshot(testInfo, 'verifier-error');

  await lab.setSource(HEAD + CHECK + TAIL);
  await expect.poll(async () => (await lab.markers()).length).toBe(0);
  await expect(lab.buildStatus).toContainText('verified');
  await expect(page.getByTestId('attached')).toContainText('XDP: prog');
  await lab.sim.run();
  const d0 = await lab.sim.counter('actions', 'DROP');
  await expect.poll(() => lab.sim.counter('actions', 'DROP')).toBeGreaterThan(d0 + 100);
  await lab.tab('verifier').click();
  await expect(page.getByTestId('verdict')).toContainText('accepted');
});

test('the examples menu loads xdp2, which transmits: TX counters and the XDP tx ring move', async ({ page }, testInfo) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.examples.selectOption('xdp2');
  await expect.poll(() => lab.source()).toContain('XDP_TX');
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_prog');
  await lab.sim.run();
  await expect.poll(() => lab.sim.counter('actions', 'TX')).toBeGreaterThan(1000);
  const prod = page.getByTestId('ring-tx0-prod');
  const before = await prod.textContent();
  await expect.poll(() => prod.textContent()).not.toBe(before);
  await expect.poll(() => lab.sim.counter('counters', 'tx_packets')).toBeGreaterThan(0);
  await lab.screenshot(testInfo, 'xdp2-tx');
});

test('the maps pane shows xdp1 counting per protocol, and user space can update it', async ({ page }, testInfo) => {
  const lab = new LabPage(page);
  await lab.open();
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_prog1');
  await lab.tab('maps').click();
  const udp = page.getByTestId('map-rxcnt-11000000'); // key 17 = IPPROTO_UDP
  await expect(udp).toBeVisible();
  await lab.screenshot(testInfo, 'maps');
  await lab.sim.pause();
  // Raw bytes, as bpftool takes them (the C-typed form is in maps-typed.spec.ts).
  await page.getByTestId('map-key-format').selectOption('hex');
  await page.getByTestId('map-value-format').selectOption('hex');
  await page.getByTestId('map-key').fill('06000000');
  await page.getByTestId('map-value').fill('2a00000000000000');
  await page.getByTestId('map-update').click();
  await expect(page.getByTestId('map-rxcnt-06000000')).toContainText('42');
  await page.getByTestId('map-key').fill('0600');
  await page.getByTestId('map-update').click();
  await expect(page.getByTestId('map-update-result')).toContainText('the key must be 4 bytes');
});
