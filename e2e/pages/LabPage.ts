/**
 * Page object for the XDP Lab app: every selector the specs use lives here,
 * keyed on data-testid, so the specs read as user stories.
 */
import { expect, type Locator, type Page, type TestInfo } from '@playwright/test';

export class LabPage {
  readonly editor: Locator;
  readonly engineStatus: Locator;
  readonly buildStatus: Locator;
  readonly examples: Locator;
  readonly notice: Locator;

  constructor(readonly page: Page) {
    this.editor = page.getByTestId('editor');
    this.engineStatus = page.getByTestId('engine-status');
    this.buildStatus = page.getByTestId('build-status');
    this.examples = page.getByTestId('examples');
    this.notice = page.getByTestId('notice');
  }

  async open(path = '/'): Promise<void> {
    await this.page.goto(path);
    await expect(this.editor.locator('.monaco-editor')).toBeVisible();
  }

  /** The editor's full text, read from Monaco's model (the DOM only holds visible lines). */
  async source(): Promise<string> {
    return this.page.evaluate(() => {
      const w = window as unknown as { __xdpLab?: { source(): string } };
      return w.__xdpLab?.source() ?? '';
    });
  }

  /** Replace the editor text the way a user would: select all, type. */
  async setSource(text: string): Promise<void> {
    await this.editor.locator('.monaco-editor textarea').focus();
    await this.page.keyboard.press('ControlOrMeta+A');
    // insertText arrives as one input event, like a paste: no auto-closing brackets.
    await this.page.keyboard.insertText(text);
  }

  tab(name: 'disasm' | 'verifier' | 'inspector' | 'maps' | 'console'): Locator {
    return this.page.getByTestId(`tab-${name}`);
  }

  async screenshot(testInfo: TestInfo, name: string): Promise<void> {
    await testInfo.attach(name, { body: await this.page.screenshot(), contentType: 'image/png' });
  }
}
