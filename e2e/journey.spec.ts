/** Following one packet past the program's verdict to where its page goes back: XDP_TX, a devmap redirect and AF_XDP. */
import { expect, test, type Page } from '@playwright/test';
import { LabPage } from './pages/LabPage';

/** Inspect the latest packet, follow it to the end, and return the lifecycle's kinds and lines. */
async function followLatest(page: Page, lab: LabPage): Promise<{ kinds: string[]; texts: string[] }> {
  await lab.tab('inspector').click();
  await page.getByTestId('inspect-latest').click();
  await expect(page.getByTestId('inspected-packet')).toBeVisible();
  const state = page.getByTestId('journey-state');
  if ((await state.getAttribute('data-ended')) !== 'true') await page.getByTestId('follow-packet').click();
  await expect(state).toHaveAttribute('data-ended', 'true', { timeout: 30_000 });
  const steps = page.getByTestId('lifecycle-step');
  const kinds = await steps.evaluateAll((els) => els.map((e) => e.getAttribute('data-kind') ?? ''));
  const texts = await steps.allTextContents();
  // Every number on a line is named: no line ends in a bare "(60)".
  for (const t of texts) expect(t).not.toMatch(/\(\s*-?\d+\s*\)\s*$/);
  return { kinds, texts };
}

test('XDP_TX: a followed packet goes through the tx ring, doorbell, wire and completion back into the page cache', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.examples.selectOption('xdp2');
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_prog2');
  await expect.poll(() => lab.sim.counter('actions', 'TX')).toBeGreaterThan(10);
  const { kinds, texts } = await followLatest(page, lab);
  const from = kinds.indexOf('xdp_run');
  expect(kinds.slice(from)).toEqual(['xdp_run', 'xdp_tx', 'tx_post', 'tx_doorbell', 'xmit', 'tx_done', 'page_cache_put']);
  expect(texts.at(-1)).toMatch(/page_cache_put q0: page \d+ back into the rx ring's page cache \(pages cached after: \d+\)/);
  // The bytes stay with the followed packet.
  await expect(page.getByTestId('inspected-packet')).toContainText('XDP_TX');
  await expect(page.getByTestId('bytes-after')).toBeVisible();
});

test('devmap redirect: bulk queue, flush, ndo_xdp_xmit on the egress port, completion, xdp_return_frame', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.examples.selectOption('xdp_redirect_map');
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_redirect_map_prog', { timeout: 20_000 });
  await lab.sim.run();
  await expect.poll(() => lab.sim.counter('actions', 'REDIRECT')).toBeGreaterThan(10);
  const { kinds, texts } = await followLatest(page, lab);
  const from = kinds.indexOf('xdp_run');
  expect(kinds.slice(from)).toEqual(['xdp_run', 'xdp_redirect', 'bq_enqueue', 'bq_xmit_all', 'ndo_xdp_xmit', 'tx_doorbell', 'xmit', 'tx_clean', 'xdp_return_frame']);
  expect(texts.at(-1)).toMatch(/xdp_return_frame: page \d+ goes back to the rx ring's page reuse/);
  await expect(page.getByTestId('inspected-packet')).toContainText('XDP_REDIRECT');
});

test('AF_XDP (xdpsock l2fwd, zero-copy): socket rx ring, the application, tx ring, wire, completion ring, back to the fill ring', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.examples.selectOption('xdpsock');
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_sock_prog', { timeout: 20_000 });
  await lab.sim.run();
  await expect.poll(() => lab.sim.counter('actions', 'REDIRECT'), { timeout: 20_000 }).toBeGreaterThan(10);
  const { kinds, texts } = await followLatest(page, lab);
  const from = kinds.indexOf('xdp_run');
  expect(kinds.slice(from)).toEqual(['xdp_run', 'xdp_redirect', 'xsk_rcv', 'xsk_rx_consume', 'xsk_tx_produce', 'xsk_xmit', 'xmit', 'xsk_cq', 'xsk_fq']);
  // The chunk ends where xdpsock puts it: back on the fill ring for the NIC.
  expect(texts.at(-1)).toMatch(/fill ring/);
  await expect(page.getByTestId('inspected-packet')).toContainText('XDP_REDIRECT');
});
