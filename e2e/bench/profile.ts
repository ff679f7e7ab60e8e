/**
 * Main-thread CPU profile at full simulation speed (a tool, not a test):
 *
 *   npx vite build && npx tsx e2e/bench/profile.ts   # serves dist/ on :4175
 *
 * Samples the page's main thread with Chrome's profiler (CDP) for a few
 * seconds and prints the functions with the most self time, and the
 * total time spent in each top-level task kind.
 */
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

const PORT = Number(process.env.XDP_LAB_BENCH_PORT ?? 4175);
const SECONDS = Number(process.env.XDP_LAB_BENCH_SECONDS ?? 5);
const exe = process.env.XDP_LAB_CHROMIUM ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[] }

async function main(): Promise<void> {
  const server = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(PORT), '--strictPort'], { stdio: 'ignore', detached: true });
  const url = `http://127.0.0.1:${PORT}/`;
  try {
    for (let i = 0; i < 200; i++) {
      try { if ((await fetch(url)).ok) break; } catch { /* not up yet */ }
      await new Promise((r) => setTimeout(r, 100));
    }
    const browser = await chromium.launch({ executablePath: exe, args: ['--no-sandbox'] });
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
    await page.addInitScript('globalThis.__name = (f) => f;');
    await page.goto(url);
    await page.waitForFunction(() => ((window as unknown as { __xdpLab?: { state(): { sim: { packets: number } | null } } }).__xdpLab?.state().sim?.packets ?? 0) > 0, null, { timeout: 60_000 });
    await page.evaluate(() => (window as unknown as { __xdpLab: { setSpeed(s: string): Promise<void> } }).__xdpLab.setSpeed('max'));
    await page.waitForTimeout(500);
    const sizes = await page.evaluate(() => {
      const sim = (window as unknown as { __xdpLab: { state(): { sim: Record<string, unknown> } } }).__xdpLab.state().sim;
      return Object.entries(sim).map(([k, v]) => `${k} ${JSON.stringify(v).length}`).join(', ');
    });
    console.log(`snapshot fields (JSON chars): ${sizes}`);
    if (process.env.XDP_LAB_TRACE) {
      // Where the non-JS time goes: trace event names by total duration on the renderer main thread.
      await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
      await page.waitForTimeout(SECONDS * 1000);
      const buf = await browser.stopTracing();
      const events = (JSON.parse(buf.toString()) as { traceEvents: { name: string; ph: string; ts: number; dur?: number; tdur?: number; tid: number; args?: { name?: string } }[] }).traceEvents;
      const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain')?.tid;
      const sum = new Map<string, [number, number]>();
      for (const e of events) {
        if (e.tid !== main || e.ph !== 'X' || !e.dur) continue;
        const v = sum.get(e.name) ?? [0, 0];
        sum.set(e.name, [v[0] + e.dur / 1000, Math.max(v[1], e.dur / 1000)]);
      }
      // tdur is thread (CPU) time: less at the mercy of a loaded machine than wall time.
      const cpu = events.filter((e) => e.tid === main && e.ph === 'X' && e.name === 'RunTask').reduce((a, e) => a + (e.tdur ?? 0) / 1000, 0);
      console.log(`renderer main thread CPU time in tasks: ${cpu.toFixed(0)} ms over ${SECONDS} s`);
      console.log(`renderer main thread over ${SECONDS} s, by event (total ms, longest ms):`);
      for (const [k, [t, m]] of [...sum].sort((a, b) => b[1][0] - a[1][0]).slice(0, 25)) console.log(`  ${t.toFixed(0).padStart(6)} ${m.toFixed(1).padStart(7)}  ${k}`);
      // What the long tasks were made of: their direct children over 5 ms.
      const mainX = events.filter((e) => e.tid === main && e.ph === 'X' && e.dur) as { name: string; ts: number; dur: number }[];
      for (const t of mainX.filter((e) => e.name === 'RunTask' && e.dur > 50_000)) {
        const parts = mainX.filter((e) => e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur && e.dur > 5000 && e.name !== 'RunTask');
        console.log(`  long task ${(t.dur / 1000).toFixed(0)} ms: ${parts.map((e) => `${e.name} ${(e.dur / 1000).toFixed(0)}`).join(', ')}`);
      }
      await browser.close();
      return;
    }
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
    await page.waitForTimeout(SECONDS * 1000);
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map<string, number>();
    let total = 0;
    profile.samples.forEach((id, i) => {
      const n = byId.get(id)!;
      const f = n.callFrame;
      const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
      const dt = profile.timeDeltas[i]! / 1000;
      total += dt;
      self.set(key, (self.get(key) ?? 0) + dt);
    });
    console.log(`main-thread self time over ${(total / 1000).toFixed(1)} s (ms):`);
    for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${v.toFixed(0).padStart(6)}  ${k}`);
    await browser.close();
  } finally {
    if (server.pid) process.kill(-server.pid);
  }
}

main().catch((e) => {
  console.error(`profile: ${(e as Error).message}`);
  process.exit(1);
});
