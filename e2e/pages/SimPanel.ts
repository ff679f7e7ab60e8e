/** Page object for the simulation view: controls, counters, rings. */
import { expect, type Locator, type Page } from '@playwright/test';

export class SimPanel {
  readonly runToggle: Locator;
  readonly stepEvent: Locator;
  readonly stepPacket: Locator;
  readonly stepNapi: Locator;
  readonly stepBack: Locator;
  readonly reset: Locator;
  readonly clock: Locator;

  constructor(readonly page: Page) {
    this.runToggle = page.getByTestId('run-toggle');
    this.stepEvent = page.getByTestId('step-event');
    this.stepPacket = page.getByTestId('step-packet');
    this.stepNapi = page.getByTestId('step-napi');
    this.stepBack = page.getByTestId('step-back');
    this.reset = page.getByTestId('reset');
    this.clock = page.getByTestId('sim-clock');
  }

  async pause(): Promise<void> {
    await expect(this.runToggle).toBeVisible();
    if ((await this.runToggle.getAttribute('aria-pressed')) === 'true') await this.runToggle.click();
    await expect(this.runToggle).toHaveAttribute('aria-pressed', 'false');
    // The button flips on the worker's reply; the last snapshot lands on the next frame: wait for it.
    await this.settledEvents();
  }

  async run(): Promise<void> {
    if ((await this.runToggle.getAttribute('aria-pressed')) !== 'true') await this.runToggle.click();
  }

  async events(): Promise<number> {
    return Number(await this.clock.getAttribute('data-events'));
  }

  /**
   * The event count once the view has caught up: snapshots sent before a
   * pause or a step may still be on their way, so wait until the count has
   * not moved for a few frames.
   */
  async settledEvents(): Promise<number> {
    let last = await this.events();
    let stableSince = Date.now();
    for (;;) {
      await this.page.waitForTimeout(50);
      const now = await this.events();
      if (now !== last) {
        last = now;
        stableSince = Date.now();
      } else if (Date.now() - stableSince >= 300) return now;
    }
  }

  /** A counter's exact value (table 'actions' or 'counters'). */
  async counter(table: 'actions' | 'counters', name: string): Promise<number> {
    const cell = this.page.getByTestId(`${table}-${name}`).locator('td.value');
    return Number(await cell.getAttribute('data-value'));
  }

  ring(id: string): Locator {
    return this.page.getByTestId(`ring-${id}`);
  }

  async openSettings(): Promise<void> {
    const d = this.page.getByTestId('settings');
    if ((await d.getAttribute('open')) === null) await d.locator('summary').click();
  }
}
