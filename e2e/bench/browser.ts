/**
 * Browser benchmark (not a test: it prints numbers, it never fails on them).
 *
 *   npm run bench:browser            # builds, serves on :4174, measures in chromium
 *
 * Prints: time from navigation to a running default example (first
 * simulated packet on screen), frames per second and the longest
 * main-thread task during 10 s of full-speed simulation.
 */
import { chromium } from '@playwright/test';
import { spawn, execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const PORT = Number(process.env.XDP_LAB_BENCH_PORT ?? 4174);
const SECONDS = Number(process.env.XDP_LAB_BENCH_SECONDS ?? 10);
const exe = process.env.XDP_LAB_CHROMIUM ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
const ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

async function waitForServer(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`preview server did not start on ${url}`);
}

async function main(): Promise<void> {
  if (!process.env.XDP_LAB_BENCH_NO_BUILD) {
    process.stdout.write('building… ');
    execSync('npx vite build --logLevel error', { stdio: 'inherit' });
    process.stdout.write('done\n');
  }
  const server = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(PORT), '--strictPort'], { stdio: 'ignore', detached: true });
  const url = `http://127.0.0.1:${PORT}/`;
  try {
    await waitForServer(url);
    const browser = await chromium.launch({ executablePath: exe, args: ARGS });
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
    // tsx compiles this file with keepNames; functions sent to the page reference its __name helper.
    await page.addInitScript('globalThis.__name = (f) => f;');
    // Long tasks are observed from the very start of the page.
    await page.addInitScript(() => {
      const w = window as unknown as { __bench: { longTasks: number[] } };
      w.__bench = { longTasks: [] };
      try {
        new PerformanceObserver((l) => { for (const e of l.getEntries()) w.__bench.longTasks.push(e.duration); }).observe({ type: 'longtask', buffered: true });
      } catch { /* longtask unsupported */ }
    });
    const t0 = Date.now();
    await page.goto(url);
    type S = { sim: { packets: number } | null; capabilities: { sim: boolean } | null; build: unknown; running: boolean; speed: unknown };
    // "Shown" means on screen: the editor is up and the build status is the worker's answer.
    const state = () => page.evaluate(() => {
      const shown = !!document.querySelector('.monaco-editor') && document.querySelector('[data-testid=build-status]')?.textContent !== 'starting…';
      return shown ? ((window as unknown as { __xdpLab?: { state(): unknown } }).__xdpLab?.state() as S | undefined) : undefined;
    });
    let firstBuildMs: number | null = null;
    let runningMs: number | null = null;
    let simAvailable = true;
    for (let i = 0; i < 600; i++) {
      const s = await state();
      if (s?.build && firstBuildMs === null) firstBuildMs = Date.now() - t0;
      if (s?.capabilities && !s.capabilities.sim) simAvailable = false;
      if (s?.sim && s.sim.packets > 0) {
        runningMs = Date.now() - t0;
        break;
      }
      if (!simAvailable && firstBuildMs !== null) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    console.log('XDP Lab browser benchmark (chromium, 1280×720)');
    console.log(`  navigation → editor and first build shown: ${firstBuildMs ?? 'n/a'} ms`);
    console.log(`  navigation → default example running:      ${runningMs !== null ? `${runningMs} ms` : 'n/a (simulator not available in this build)'}`);
    await page.waitForTimeout(500); // let startup settle: measure the steady state
    if (simAvailable) {
      await page.evaluate(async () => {
        const lab = (window as unknown as { __xdpLab: { setSpeed(s: unknown): Promise<void> } }).__xdpLab;
        await lab.setSpeed('max');
      });
    }
    // Frames and gaps between frames over SECONDS, at full speed.
    const m = await page.evaluate(async (secs) => {
      const w = window as unknown as { __bench: { longTasks: number[] }; __xdpLab: { state(): { sim: { packets: number; events: number } | null } } };
      w.__bench.longTasks = [];
      const before = w.__xdpLab.state().sim;
      let frames = 0;
      let worst = 0;
      let last = performance.now();
      const start = last;
      await new Promise<void>((done) => {
        const f = (t: number) => {
          frames++;
          worst = Math.max(worst, t - last);
          last = t;
          if (t - start < secs * 1000) requestAnimationFrame(f);
          else done();
        };
        requestAnimationFrame(f);
      });
      const after = w.__xdpLab.state().sim;
      const elapsed = (performance.now() - start) / 1000;
      return {
        fps: frames / elapsed,
        worstFrameMs: worst,
        longTasks: w.__bench.longTasks,
        packets: before && after ? after.packets - before.packets : null,
        events: before && after ? after.events - before.events : null,
        elapsed,
      };
    }, SECONDS);
    const longest = m.longTasks.length ? Math.max(...m.longTasks) : 0;
    console.log(`  during ${SECONDS} s at full speed${simAvailable ? '' : ' (simulator not available: idle app)'}:`);
    console.log(`    frames per second:                   ${m.fps.toFixed(1)}`);
    console.log(`    longest main-thread task:            ${m.longTasks.length ? `${longest.toFixed(0)} ms (${m.longTasks.length} tasks over 50 ms)` : 'none over 50 ms'}`);
    console.log(`    longest gap between frames:          ${m.worstFrameMs.toFixed(1)} ms`);
    if (m.packets !== null) console.log(`    simulated: ${m.packets.toLocaleString('en')} packets, ${m.events!.toLocaleString('en')} events (${(m.events! / m.elapsed).toFixed(0)} events/s wall)`);
    await browser.close();
  } finally {
    if (server.pid) process.kill(-server.pid);
  }
}

main().catch((e) => {
  console.error(`bench:browser: ${(e as Error).message}`);
  process.exit(1);
});
