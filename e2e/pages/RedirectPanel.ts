/** Page object for the XDP_REDIRECT panel and the driver settings that shape it. */
import { expect, type Locator, type Page } from '@playwright/test';

export class RedirectPanel {
  readonly root: Locator;
  readonly target: Locator;
  readonly histogram: Locator;
  readonly entryProgram: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('redirect-panel');
    this.target = page.getByTestId('redirect-target');
    this.histogram = page.getByTestId('flush-histogram');
    this.entryProgram = page.getByTestId('entry-program');
  }

  /** Scroll the panel to the top of the simulation view (for screenshots). */
  async show(): Promise<void> {
    await this.root.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  }

  /** A CPU's bulk queue. */
  bulk(cpu: number): Locator {
    return this.page.getByTestId(`bulk-cpu-${cpu}`);
  }

  /** Frames waiting in a CPU's bulk queue right now. */
  async waiting(cpu: number): Promise<number> {
    return Number(await this.bulk(cpu).getAttribute('data-n'));
  }

  /** A CPU's bulk queue in one read: the frames it says are waiting, and the slots drawn full. */
  async bulkState(cpu: number): Promise<{ n: number; full: number }> {
    return this.bulk(cpu).evaluate((el) => ({ n: Number(el.getAttribute('data-n')), full: el.querySelectorAll('rect.full').length }));
  }

  /** A redirect counter's exact value (enqueued, flushed, sent, errors, …). */
  async counter(name: string): Promise<number> {
    return Number(await this.page.getByTestId(`redirect-counters-${name}`).locator('td.value').getAttribute('data-value'));
  }

  /** Frames the flush-size histogram accounts for. */
  async framesFlushed(): Promise<number> {
    return Number(await this.histogram.getAttribute('data-frames'));
  }

  /** The target's tx ring (drawn by RingCanvas). */
  txRing(): Locator {
    return this.page.getByTestId('ring-redirect-tx');
  }

  /** Whether frames sit on the target's tx ring (its producer is ahead of its consumer), in one read. */
  async txRingHolds(): Promise<boolean> {
    return this.txRing().evaluate((el) => {
      const at = (name: string) => el.querySelector(`[data-testid="ring-redirect-tx-${name}"]`)?.textContent?.replace(/\D+/g, '') ?? '';
      return at('prod') !== at('cons');
    });
  }

  // ------------------------------------------------------------ driver settings

  async openSettings(): Promise<void> {
    const d = this.page.getByTestId('settings');
    if ((await d.getAttribute('open')) === null) await d.locator('summary').click();
    await expect(this.page.getByTestId('nic')).toBeVisible();
  }

  async chooseDriver(nic: 'mlx4' | 'vmxnet3' | 'i40e'): Promise<void> {
    await this.page.getByTestId('nic').selectOption(nic);
  }

  async chooseRedirect(target: string): Promise<void> {
    await this.page.getByTestId('redirect').selectOption(target);
  }

  get driverLegend(): Locator {
    return this.page.getByTestId('driver-legend');
  }

  get settingsError(): Locator {
    return this.page.getByTestId('settings-error');
  }

  gauge(id: string): Locator {
    return this.page.getByTestId(`gauge-${id}`);
  }
}
