/**
 * The Content-Security-Policy (scripts/vite-csp.ts): present as a header and a
 * <meta> tag, scripts only from the app's origin, no eval on the page, eval
 * only in the engine's worker (the JIT), and the app working under it: no
 * violation while the default example runs, a program is edited and rebuilt,
 * and the verifier and CFG panes open.
 */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';

test('the CSP is sent and enforced, the JIT runs only in the worker, and the app works under it', async ({ page }, testInfo) => {
  const violations: string[] = [];
  await page.exposeFunction('__cspViolation', (v: string) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      void (window as unknown as { __cspViolation(v: string): void }).__cspViolation(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  const workerPolicies = new Map<string, string>();
  page.on('response', (r) => {
    if (/\/assets\/(worker|teach\.worker|editor\.worker)-/.test(r.url())) workerPolicies.set(new URL(r.url()).pathname.split('/').pop()!.split('-')[0]!, r.headers()['content-security-policy'] ?? '');
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));

  const lab = new LabPage(page);
  const doc = await page.request.get('/');
  const header = doc.headers()['content-security-policy'] ?? '';
  expect(header).toContain("script-src 'self';");
  expect(header).toContain("frame-ancestors 'none'");
  expect(header).toContain("object-src 'none'");
  expect(header).not.toContain('unsafe-eval');
  expect(header).not.toMatch(/script-src[^;]*unsafe-inline/);

  await lab.open();
  const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(meta).toMatch(/script-src 'self'(;|$)/);
  // The page may run neither inline script nor generated code (probed outside Playwright's own evaluation, which
  // DevTools exempts); the engine's worker may (it says so in the header).
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true';
    document.head.append(s);
    (setTimeout as unknown as (code: string, ms: number) => void)('window.__evalRan = true', 0);
  });
  await expect.poll(() => violations.length).toBeGreaterThanOrEqual(2);
  expect(await page.evaluate(() => [(window as unknown as { __inlineRan?: boolean }).__inlineRan ?? false, (window as unknown as { __evalRan?: boolean }).__evalRan ?? false])).toEqual([false, false]);
  // (each reported once per policy: the header's and the meta tag's)
  expect([...new Set(violations.map((v) => v.split(' ')[0]))].sort()).toEqual(['script-src', 'script-src-elem']);
  violations.length = 0;
  await expect(lab.engineStatus).toContainText('engine: ready · JIT');
  expect(workerPolicies.get('worker')).toContain("'unsafe-eval'");
  expect(workerPolicies.get('editor.worker') ?? "script-src 'self'").not.toContain('unsafe-eval');

  // Working under it: traffic runs, an edit rebuilds and re-attaches, the panes draw.
  await expect.poll(() => lab.sim.counter('counters', 'rx_packets'), { timeout: 20_000 }).toBeGreaterThan(0);
  const src = await lab.source();
  await lab.setSource(src.replace('XDP_DROP', 'XDP_PASS'));
  await expect(lab.buildStatus).toContainText('verified');
  await lab.tab('verifier').click();
  await expect(page.getByTestId('verdict')).toContainText('accepted');
  await page.getByTestId('tab-cfg').click();
  await expect(page.getByTestId('cfg')).toBeVisible();
  await lab.screenshot(testInfo, 'csp');
  expect(violations).toEqual([]);
  expect(errors).toEqual([]);
});
