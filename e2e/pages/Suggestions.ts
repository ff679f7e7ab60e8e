/** Page object for Monaco's suggestion widget (completion of the headers' names). */
import type { Locator, Page } from '@playwright/test';

export class Suggestions {
  readonly widget: Locator;

  constructor(readonly page: Page) {
    this.widget = page.getByTestId('editor').locator('.suggest-widget');
  }

  /** The row offering `label` (its text also holds the detail: a prototype, a field's type). */
  row(label: string): Locator {
    return this.widget.locator('.monaco-list-row', { has: this.page.locator('.label-name', { hasText: new RegExp(`^${label}$`) }) });
  }

  /** The row the widget would insert on Enter. */
  get focused(): Locator {
    return this.widget.locator('.monaco-list-row.focused');
  }

  async accept(): Promise<void> {
    await this.page.keyboard.press('Enter');
  }
}
