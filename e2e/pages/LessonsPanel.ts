/** Page object for the lessons panel above the editor. */
import { expect, type Locator, type Page } from '@playwright/test';

export class LessonsPanel {
  readonly toggle: Locator;
  readonly panel: Locator;
  readonly steps: Locator;

  constructor(readonly page: Page) {
    this.toggle = page.getByTestId('lessons-toggle');
    this.panel = page.getByTestId('lessons');
    this.steps = this.panel.getByTestId('lesson-step');
  }

  async open(): Promise<void> {
    if ((await this.toggle.getAttribute('aria-pressed')) !== 'true') await this.toggle.click();
    await expect(this.panel).toBeVisible();
  }

  async choose(id: string): Promise<void> {
    await this.panel.getByTestId(`lesson-${id}`).click();
    await expect(this.panel.getByTestId(`lesson-${id}`)).toHaveAttribute('aria-current', 'true');
  }

  step(i: number): Locator {
    return this.steps.nth(i);
  }

  async setUp(i: number): Promise<void> {
    await this.step(i).getByTestId('lesson-setup').click();
  }

  async expectDone(i: number, timeout = 30_000): Promise<void> {
    await expect(this.step(i)).toHaveAttribute('data-done', 'true', { timeout });
  }
}
