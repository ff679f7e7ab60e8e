/** Page object for the AF_XDP socket view: the mode control, the UMEM grid, the four rings, the counters. */
import { expect, type Locator, type Page } from '@playwright/test';

export type XskMode = 'off' | 'zc' | 'copy' | 'skb';
export type XskRingKind = 'fill' | 'xsk_rx' | 'xsk_tx' | 'completion';

export class XskPanel {
  readonly section: Locator;
  readonly mode: Locator;
  readonly panel: Locator;
  readonly grid: Locator;
  readonly legend: Locator;
  readonly counters: Locator;
  readonly refused: Locator;

  constructor(readonly page: Page) {
    this.section = page.getByTestId('xsk-section');
    this.mode = page.getByTestId('xsk-mode');
    this.panel = page.getByTestId('xsk-panel');
    this.grid = page.getByTestId('umem-grid');
    this.legend = page.getByTestId('umem-legend');
    this.counters = page.getByTestId('xsk-counters');
    this.refused = page.getByTestId('xsk-refused');
  }

  /** Bind (or close) the socket through the settings control, and wait for the machine to show it. */
  async setMode(mode: XskMode): Promise<void> {
    await this.mode.selectOption(mode);
    if (mode === 'off') await expect(this.panel).toHaveCount(0);
    else await expect(this.panel).toHaveAttribute('data-mode', mode);
  }

  /** The ring box (frame, canvas, entry count) for one of the four rings. */
  ring(kind: XskRingKind): Locator {
    return this.page.getByTestId(`xsk-ring-${kind}`);
  }

  /** Produced, not yet consumed entries of a ring. */
  async entries(kind: XskRingKind): Promise<number> {
    return Number(await this.ring(kind).getAttribute('data-entries'));
  }

  /** A ring's named pointer (prod, cons) as RingCanvas labels it. */
  async pointer(kind: XskRingKind, name: 'prod' | 'cons'): Promise<number> {
    const id = { fill: 'xsk-fill', xsk_rx: 'xsk-rx', xsk_tx: 'xsk-tx', completion: 'xsk-completion' }[kind];
    const text = await this.page.getByTestId(`ring-${id}-${name}`).textContent();
    return Number(text?.replace(/\D+/g, ''));
  }

  /** How many UMEM chunks an owner holds (free, fill, nic_rx, rx, tx, nic_tx, completion). */
  async owned(owner: string): Promise<number> {
    return Number(await this.page.getByTestId(`umem-owner-${owner}`).getAttribute('data-count'));
  }

  /** Every owner's chunk count, from the legend. */
  async owners(): Promise<Record<string, number>> {
    const items = this.legend.locator('li');
    const out: Record<string, number> = {};
    for (let i = 0; i < (await items.count()); i++) {
      const li = items.nth(i);
      out[(await li.getAttribute('data-testid'))!.replace('umem-owner-', '')] = Number(await li.getAttribute('data-count'));
    }
    return out;
  }

  /** A socket counter's exact value (rx, tx, fill, completion, rx_dropped, …). */
  async counter(name: string): Promise<number> {
    return Number(await this.page.getByTestId(`xsk-counters-${name}`).locator('td.value').getAttribute('data-value'));
  }
}
