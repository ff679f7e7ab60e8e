/**
 * Page object for the XDP Lab app: every selector the specs use lives here,
 * keyed on data-testid, so the specs read as user stories.
 */
import { expect, type Locator, type Page, type TestInfo } from '@playwright/test';
import { SimPanel } from './SimPanel';

export class LabPage {
  readonly editor: Locator;
  readonly engineStatus: Locator;
  readonly buildStatus: Locator;
  readonly examples: Locator;
  readonly notice: Locator;
  readonly sim: SimPanel;

  constructor(readonly page: Page) {
    this.editor = page.getByTestId('editor');
    this.engineStatus = page.getByTestId('engine-status');
    this.buildStatus = page.getByTestId('build-status');
    this.examples = page.getByTestId('examples');
    this.notice = page.getByTestId('notice');
    this.sim = new SimPanel(page);
  }

  /**
   * Open the app. Tests that do not measure the simulation open it at a
   * gentle 20k events/s, so the shared CI machine's cores go to the test.
   */
  async open(path = '/', opts: { fullSpeed?: boolean } = {}): Promise<void> {
    const url = new URL(path, 'http://x');
    if (!opts.fullSpeed && !url.searchParams.has('speed')) url.searchParams.set('speed', '20000');
    await this.page.goto(url.pathname + url.search + url.hash);
    // Generous: the CI machine is shared, and Monaco is most of the bundle.
    await expect(this.editor.locator('.monaco-editor')).toBeVisible({ timeout: 30_000 });
  }

  /** The editor's full text, read from Monaco's model (the DOM only holds visible lines). */
  async source(): Promise<string> {
    return this.page.evaluate(() => {
      const w = window as unknown as { __xdpLab?: { source(): string } };
      return w.__xdpLab?.source() ?? '';
    });
  }

  /**
   * Click into the program text, as a user does. Inside the editor's visible
   * box: Monaco's .view-lines is as tall as the whole file and scrolls with
   * it, so its centre can lie outside the editor, under whatever is above it
   * (the explanation of a rejected program), when the file is long.
   */
  async focusEditor(): Promise<void> {
    await this.editor.click({ position: { x: 200, y: 40 } });
  }

  /** Replace the editor text the way a user would: select all, type. */
  async setSource(text: string): Promise<void> {
    await this.focusEditor();
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.paste(text);
  }

  /** Markers Monaco holds for the program (line, message, severity). */
  async markers(): Promise<{ line: number; col: number; message: string; severity: string; source: string }[]> {
    return this.page.evaluate(() => (window as unknown as { __xdpLab: { markers(): never } }).__xdpLab.markers());
  }

  /** The C line the editor links to the selected instruction (null: none). */
  async linkedLine(): Promise<number | null> {
    return this.page.evaluate(() => (window as unknown as { __xdpLab: { linkedLine(): number | null } }).__xdpLab.linkedLine());
  }

  /** Move the cursor to a line with Monaco's own Go to Line (Ctrl+G), as a keyboard user would. */
  async gotoLine(line: number): Promise<void> {
    await this.focusEditor();
    await this.page.keyboard.press('Control+g');
    await this.page.keyboard.type(String(line));
    await this.page.keyboard.press('Enter');
  }

  /** Paste text at the cursor, as Ctrl+V would (a real paste event, so no auto-indent per line). */
  async paste(text: string): Promise<void> {
    await this.page.evaluate((t) => {
      const dt = new DataTransfer();
      dt.setData('text/plain', t);
      document.activeElement!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    }, text);
  }

  /** Make a share link with the Share button; returns the URL it shows. */
  async share(): Promise<string> {
    await this.page.getByTestId('share').click();
    const field = this.page.getByTestId('share-link');
    await expect(field).toHaveValue(/#share=/);
    return field.inputValue();
  }

  tab(name: 'disasm' | 'verifier' | 'inspector' | 'maps' | 'console'): Locator {
    return this.page.getByTestId(`tab-${name}`);
  }

  async screenshot(testInfo: TestInfo, name: string): Promise<void> {
    await testInfo.attach(name, { body: await this.page.screenshot(), contentType: 'image/png' });
  }
}
