/**
 * Persistence that cannot lose work (issue 17): a save that fails because
 * localStorage is full is said, with the edit kept and a download offered;
 * a corrupted share link leaves the saved program as it was; a hostile link
 * changes nothing but the program text.
 */
import { expect, test } from '@playwright/test';
import { deflateSync, strToU8 } from 'fflate';
import { LabPage } from './pages/LabPage';

const EDITED = 'SEC("xdp")\nint kept_prog(struct xdp_md *ctx)\n{\n\treturn XDP_PASS; /* mine */\n}\n';

/** A share payload of any JSON, encoded as the app encodes links. */
const payload = (o: unknown): string => Buffer.from(deflateSync(strToU8(JSON.stringify(o)))).toString('base64url');

test('a full localStorage: the failed save is said, the edit stays, a download is offered', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await expect(lab.engineStatus).toContainText('engine: ready');
  // Fill the origin's storage to the quota (what a full browser profile looks like).
  const filled = await page.evaluate(() => {
    // Halving chunks, so not even a few bytes are left over.
    let n = 0;
    for (let size = 1 << 20; size >= 1; size >>= 1) {
      const chunk = 'x'.repeat(size);
      for (;;) {
        try {
          localStorage.setItem(`filler-${n}`, chunk);
          n++;
        } catch {
          break;
        }
        if (n > 100_000) return -1;
      }
    }
    return n;
  });
  expect(filled, 'storage never filled up').toBeGreaterThan(0);
  // An edit that needs more room than the saved copy it replaces.
  const BIG = EDITED + `/* ${'notes '.repeat(4000)}*/\n`;
  await lab.setSource(BIG);
  await expect(lab.notice).toContainText('could not be saved', { timeout: 10_000 });
  await expect(page.getByTestId('notice-download')).toBeVisible();
  await expect(page.getByTestId('notice-retry')).toBeVisible();
  expect(await lab.source()).toBe(BIG);
  // Room again: retrying saves, and a reload finds the edit.
  await page.evaluate(() => {
    for (const k of Object.keys(localStorage)) if (k.startsWith('filler-')) localStorage.removeItem(k);
  });
  await page.getByTestId('notice-retry').click();
  await expect(lab.notice).toContainText('saved again');
  await page.reload();
  await expect.poll(() => lab.source()).toBe(BIG);
});

test('a corrupted share link leaves the saved program intact', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.setSource(EDITED);
  await expect.poll(() => lab.source()).toBe(EDITED);
  await page.waitForTimeout(600); // the autosave's debounce
  // Same browser, a link whose payload is damaged in the middle.
  const good = await lab.share();
  const at = good.indexOf('#share=') + 20;
  const bad = good.slice(0, at) + (good[at] === 'A' ? 'B' : 'A') + good.slice(at + 1, good.length - 3);
  await page.goto('about:blank'); // a real page load, not a same-document hash change
  await lab.open(bad);
  await expect(lab.notice).toContainText('could not be opened');
  await expect.poll(() => lab.source()).toBe(EDITED);
  // And the plain URL afterwards still has the learner's program.
  await page.goto('about:blank');
  await lab.open('/');
  await expect.poll(() => lab.source()).toBe(EDITED);
});

test('a hostile share link changes nothing but the program text', async ({ page }) => {
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const lab = new LabPage(page);
  await lab.open();
  await expect(lab.engineStatus).toContainText('engine: ready');
  const before = await page.evaluate(() => localStorage.getItem('xdp-lab:settings'));
  const text = 'SEC("xdp")\nint linked(struct xdp_md *ctx)\n{\n\treturn XDP_DROP;\n}\n';
  const hostile = payload({
    v: 2,
    files: [
      { path: 'prog.c', text },
      { path: '<img src=x onerror="window.__pwned=1">.c', text: 'int x;' },
      { path: '../../etc/passwd', text: 'root' },
    ],
    main: 'prog.c',
    flags: ['-I/etc', '$(reboot)'],
    example: '<script>window.__pwned=1</script>',
    settings: { driver: { model: 'evil', mode: 'javascript:alert(1)' }, traffic: { profile: '__proto__' } },
    speed: 'fast',
  });
  await page.goto('about:blank');
  await lab.open(`/#share=${hostile}`);
  await expect(lab.notice).toContainText('Opened the program shared in the link');
  await expect(lab.notice).toContainText('ignored');
  await expect.poll(() => lab.source()).toBe(text);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
  // No file with a hostile name, no unknown example, the machine's settings as they were.
  await expect(page.getByTestId('file-tab')).toHaveCount(1);
  await expect(page.getByTestId('file-tab')).toHaveAttribute('data-path', 'prog.c');
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  await expect(lab.examples).toHaveValue('');
  expect(await page.evaluate(() => localStorage.getItem('xdp-lab:settings'))).toBe(before);
});
