/**
 * Keyboard only: Tab from the top of the page reaches every visible control
 * (Ctrl+M lets Tab leave the editor, as in VS Code), and `?` opens the list
 * of shortcuts, which Esc closes with focus back where it was.
 */
import { expect, test, type Page } from '@playwright/test';
import { LabPage } from './pages/LabPage';

/** Press Tab from the top until focus comes back round; the focus order as stable labels. */
async function tabOrder(page: Page, onEditor: () => Promise<void>): Promise<string[]> {
  const order: string[] = [];
  let editorSeen = false;
  for (let i = 0; i < 300; i++) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate((n) => {
      const a = document.activeElement as HTMLElement | null;
      if (!a || a === document.body) return null;
      if (!a.dataset.tabOrder) a.dataset.tabOrder = String(n);
      return a.dataset.tabOrder + (a.closest('.monaco-editor') ? ':editor' : '');
    }, i);
    if (id === null) {
      if (order.length > 0) break;
      continue;
    }
    if (order.includes(id)) break;
    order.push(id);
    if (id.endsWith(':editor') && !editorSeen) {
      editorSeen = true;
      await onEditor();
    }
  }
  return order;
}

/** Every control a user can see and operate: natively focusable or in the tab order, not disabled, laid out. */
async function visibleControls(page: Page): Promise<{ label: string; order: string | null }[]> {
  return page.evaluate(() => {
    const sel = 'button, input, select, textarea, a[href], summary, [tabindex]';
    const out: { label: string; order: string | null }[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>(sel))) {
      if (el.getAttribute('tabindex') === '-1') continue; // roving tabindex (pane tabs) or not meant for Tab
      if ((el as HTMLButtonElement).disabled) continue;
      if (el.closest('[aria-hidden="true"], [inert], dialog:not([open])')) continue;
      if (el.getClientRects().length === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      // Monaco's own widgets (hover, find) are inside the editor, which is one Tab stop: its textarea.
      if (el.closest('.monaco-editor') && !(el instanceof HTMLTextAreaElement)) continue;
      const label = el.dataset.testid ?? el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 40) ?? el.tagName;
      out.push({ label: `${el.tagName.toLowerCase()} ${label}`, order: el.dataset.tabOrder ?? null });
    }
    return out;
  });
}

test('Tab from the top reaches every visible control, leaving the editor with Ctrl+M', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open('/');
  await expect(page.getByTestId('attached')).toContainText('XDP:');
  const source = await lab.source();
  await expect(page.getByTestId('tab-mode')).toHaveAttribute('aria-pressed', 'false');
  // Open the collapsed settings so their controls count too.
  const settings = page.getByTestId('settings');
  if ((await settings.evaluate((d) => d.tagName)) === 'DETAILS') await settings.evaluate((d) => ((d as HTMLDetailsElement).open = true));

  const order = await tabOrder(page, async () => {
    // Inside the editor Tab indents (one tab typed, then undone), Ctrl+M makes it move on.
    await page.keyboard.press('Control+M');
    await expect(page.getByTestId('tab-mode')).toHaveAttribute('aria-pressed', 'true');
  });
  const controls = await visibleControls(page);
  const missed = controls.filter((c) => c.order === null).map((c) => c.label);
  expect(missed, `controls Tab never reached (focus order had ${order.length} stops)`).toEqual([]);
  expect(controls.length).toBeGreaterThan(25);
  // The focus order starts in the header, passes through the editor, the run button, the panes and the settings.
  const at = async (testid: string) => Number(await page.getByTestId(testid).getAttribute('data-tab-order'));
  expect(order.some((o) => o.endsWith(':editor'))).toBe(true);
  for (const t of ['examples', 'run-toggle', 'step-event', 'reset', 'splitter', 'tab-disasm', 'mtu', 'theme-toggle']) {
    expect(Number.isFinite(await at(t)), `${t} in the focus order`).toBe(true);
  }
  expect(await at('examples')).toBeLessThan(await at('run-toggle'));
  expect(await at('run-toggle')).toBeLessThan(await at('step-event'));
  // Nothing was typed into the program on the way.
  expect(await lab.source()).toBe(source);
});

test('Ctrl+M switches Tab between indenting and moving focus; the header says which', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open('/');
  const source = await lab.source();
  await lab.focusEditor();
  await page.keyboard.press('Tab');
  await expect.poll(() => lab.source()).not.toBe(source);
  await page.keyboard.press('ControlOrMeta+Z');
  await expect.poll(() => lab.source()).toBe(source);
  await page.keyboard.press('Control+M');
  await expect(page.getByTestId('tab-mode')).toContainText('moves focus');
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => !!document.activeElement?.closest('.monaco-editor'))).toBe(false);
  expect(await lab.source()).toBe(source);
  // Kept across a reload.
  await page.reload();
  await expect(page.getByTestId('tab-mode')).toHaveAttribute('aria-pressed', 'true');
});

test('? opens the list of shortcuts; Esc closes it and focus returns', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open('/');
  const run = page.getByTestId('run-toggle');
  await run.focus();
  await page.keyboard.press('Shift+Slash');
  const dialog = page.getByTestId('shortcuts-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Ctrl+M');
  await expect(dialog).toContainText('Alt+R');
  await expect(page.getByTestId('shortcuts-close')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(run).toBeFocused();
  // In the editor `?` is text, not a command.
  await lab.focusEditor();
  await page.keyboard.press('Shift+Slash');
  await expect(dialog).toBeHidden();
  await page.keyboard.press('ControlOrMeta+Z');
  // The header's Keys button opens it too.
  await page.getByTestId('shortcuts-open').click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('shortcuts-open')).toBeFocused();
});

test('the disassembly is one Tab stop: arrow keys move the selection, Tab moves on', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open('/');
  await expect(page.getByTestId('attached')).toContainText('XDP:');
  await lab.tab('disasm').click();
  await page.getByTestId('tab-disasm').focus();
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('insn-0')).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(page.getByTestId('insn-2')).toBeFocused();
  await expect(page.getByTestId('insn-2')).toHaveAttribute('aria-selected', 'true');
  // The editor follows the selection, as a click does.
  await expect.poll(() => lab.linkedLine()).not.toBeNull();
  await page.keyboard.press('End');
  const last = await page.locator('[data-testid^="insn-"][role="option"]').last().getAttribute('data-testid');
  await expect(page.getByTestId(last!)).toBeFocused();
  // Only the selected row is in the tab order, so Tab leaves the listing.
  expect(await page.locator('[role="option"][tabindex="0"]').count()).toBe(1);
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).not.toBe('option');
});
