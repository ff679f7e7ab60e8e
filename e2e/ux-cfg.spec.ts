/**
 * The verifier, drawn: the CFG of a rejected program marks the failing path
 * (from the entry block to the block of the failing instruction, and only
 * blocks on it), blocks carry the verifier's visit counts, and a click shows
 * a block's states.
 */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';

const REJECTED = `#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int prog(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	unsigned char *p = data;
	if ((void *)(eth + 1) > data_end)
		return XDP_PASS;
	if (eth->h_proto == 8)
		return XDP_DROP;
	if (p[40] == 1)
		return XDP_TX;
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
`;

test('the CFG of a rejected program highlights the failing path; a block shows its states', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.setSource(REJECTED);
  await expect(lab.buildStatus).toContainText('rejected by the verifier');
  await page.getByTestId('tab-cfg').click();
  await expect(page.getByTestId('cfg')).toBeVisible();
  const errorPc = await page.evaluate(() => {
    const b = (window as unknown as { __xdpLab: { state(): { build: { verify: { errorPc?: number } } } } }).__xdpLab.state().build;
    return b.verify.errorPc ?? null;
  });
  expect(errorPc).not.toBeNull();
  const blocks = await page.locator('[data-testid^="cfg-block-"]').evaluateAll((els) =>
    els.map((e) => ({ id: e.getAttribute('data-testid')!, start: Number(e.getAttribute('data-start')), onPath: e.getAttribute('data-error-path') === 'true', visits: Number(e.getAttribute('data-visits')), text: e.textContent ?? '' })));
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  const onPath = blocks.filter((b) => b.onPath);
  const off = blocks.filter((b) => !b.onPath);
  // The entry block and the block of the failing instruction are on the path; the early returns are not.
  expect(onPath.some((b) => b.start === 0)).toBe(true);
  const failing = blocks.filter((b) => b.start <= errorPc!).sort((a, b) => b.start - a.start)[0];
  if (!failing) throw new Error(`no block holds the failing pc ${errorPc}`);
  expect(failing.onPath).toBe(true);
  expect(off.length).toBeGreaterThan(0);
  // An early return (the bounds check's XDP_PASS, the XDP_DROP) lies before the failing instruction but off its path.
  expect(off.some((b) => b.start < errorPc!)).toBe(true);
  // Edges along the path are drawn in the error style, and they connect the path's blocks.
  expect(await page.locator('.cfg-edge.on-error').count()).toBeGreaterThanOrEqual(onPath.length - 1);
  // Every explored block has a visit count from the log; the entry block was explored.
  expect(blocks.find((b) => b.start === 0)!.visits).toBeGreaterThan(0);
  // Clicking the failing block shows the verifier's states there.
  await page.getByTestId(failing.id).click();
  await expect(page.getByTestId('cfg-states')).toContainText('R1');
});

test('the same graph shows the running program\'s hot path: xdp1 over the packets it ran last', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_prog1');
  await lab.sim.run();
  await expect.poll(() => lab.sim.counter('actions', 'DROP')).toBeGreaterThan(300);
  await page.getByTestId('tab-cfg').click();
  await expect(page.getByTestId('cfg')).toBeVisible();
  await page.getByTestId('cfg-shade-running').check();
  await expect(page.getByTestId('cfg-hot-key')).toContainText(/times a block ran over the last 256 of [\d,]+ packets/);
  // The entry block ran once per kept packet; blocks of paths the UDP traffic never takes ran 0 times.
  const visits = await page.locator('[data-testid^="cfg-block-"]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-visits'))));
  expect(visits[0]).toBe(256);
  expect(visits.some((v) => v === 0)).toBe(true);
  await page.getByTestId('cfg-shade-verifier').check();
  await expect(page.locator('.cfg-key')).toContainText('times the verifier explored a block');
});
