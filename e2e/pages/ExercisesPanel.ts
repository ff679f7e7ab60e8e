/** Page object for the graded exercises (in the lessons panel) and the rejection explanation above the editor. */
import { expect, type Locator, type Page } from '@playwright/test';

export class ExercisesPanel {
  readonly toggle: Locator;
  readonly panel: Locator;
  readonly exercise: Locator;
  readonly summary: Locator;
  readonly verdicts: Locator;
  readonly hints: Locator;
  readonly explain: Locator;

  constructor(readonly page: Page) {
    this.toggle = page.getByTestId('lessons-toggle');
    this.panel = page.getByTestId('lessons');
    this.exercise = page.getByTestId('exercise');
    this.summary = page.getByTestId('grade-summary');
    this.verdicts = page.getByTestId('verdict');
    this.hints = page.getByTestId('hint');
    this.explain = page.getByTestId('explain-bar');
  }

  async open(): Promise<void> {
    if ((await this.toggle.getAttribute('aria-pressed')) !== 'true') await this.toggle.click();
    await expect(this.panel).toBeVisible();
    await this.panel.getByTestId('mode-exercises').click();
    await expect(this.exercise).toBeVisible();
  }

  async choose(id: string): Promise<void> {
    await this.panel.getByTestId(`exercise-${id}`).click();
    await expect(this.exercise).toHaveAttribute('data-id', id);
  }

  async submit(): Promise<void> {
    await this.panel.getByTestId('exercise-submit').click();
    await expect(this.summary).toBeVisible({ timeout: 30_000 });
  }

  async showHint(): Promise<void> {
    await this.panel.getByTestId('exercise-hint').click();
  }
}
