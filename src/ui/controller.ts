/**
 * The UI's one link to the engine: owns the EngineClient, sends the
 * workspace (files, main file, flags) as it is edited, and folds worker
 * answers into the store. React
 * components call these functions; they never talk to the worker directly.
 */
import { EngineClient } from '../worker/client';
import EngineWorker from '../worker/worker.ts?worker';
import { appendConsole, mainText, mergeFromWorker, setApp, useApp } from '../store';
import { singleFileWorkspace, type Workspace } from '../cc/workspace';
import type { BuildResult, SimSettings } from '../engine';
import { DEFAULT_SETTINGS } from '../engine/simTypes';
import { EXAMPLES } from '../examples';

let client: EngineClient | null = null;
/** Compiles and verifies, separately from the simulation, so a slow build can be stopped alone. */
let buildClient: EngineClient | null = null;

/** A build (compile + verify) taking longer than this is stopped: it is a bug in the lab, not the program. */
export const BUILD_TIMEOUT_MS = 8_000;
let debounce: ReturnType<typeof setTimeout> | null = null;

/**
 * The editing loop's milestones for one source text (result in the store,
 * markers set, program attached), with their times, for the browser
 * benchmark and e2e tests: window.__xdpLab.timeline, the last 64 entries.
 */
export type Milestone = 'requested' | 'answered' | 'store' | 'markers' | 'attached';
const TIMELINE_MAX = 64;
export function markMilestone(kind: Milestone, source: string, seq: number): void {
  const w = window as unknown as { __xdpLab?: { timeline?: { kind: Milestone; t: number; seq: number; source: string }[] } };
  if (!w.__xdpLab) return;
  const tl = (w.__xdpLab.timeline ??= []);
  tl.push({ kind, t: performance.now(), seq, source });
  if (tl.length > TIMELINE_MAX) tl.splice(0, tl.length - TIMELINE_MAX);
}

let inFlight = false;
let queued: Workspace | null = null;

export function engine(): EngineClient {
  if (!client) throw new Error('engine not started');
  return client;
}

/** Settings to apply once the engine is up (from a share link or the last session). */
let bootSettings: SimSettings | null = null;

/** Resolves once the UI has painted: free-running traffic waits for it, so loading the editor gets the CPU first. */
let uiPainted: Promise<void> = Promise.resolve();

export async function startEngine(settings: SimSettings | null = null, painted: Promise<void> = Promise.resolve()): Promise<void> {
  bootSettings = settings;
  uiPainted = painted;
  // The default example when nothing was restored: it is known here, so the first build waits for no answer from the engine.
  if (useApp.getState().workspace.files.length === 0) {
    const first = EXAMPLES[0]!;
    setApp({ ...workspacePatch(singleFileWorkspace(first.source)), exampleName: first.id });
  }
  client = new EngineClient(() => new EngineWorker({ name: 'xdp-lab-engine' }));
  buildClient = new EngineClient(() => new EngineWorker({ name: 'xdp-lab-build' }), BUILD_TIMEOUT_MS);
  buildClient.onRestart = (reason) => {
    inFlight = false;
    setApp({ notice: `${reason}. That is a bug in XDP Lab, not in your program; the build worker was restarted and your program is kept.` });
  };
  useApp.subscribe((s, prev) => {
    if (s.build && s.build !== prev.build) markMilestone('store', s.build.source, s.build.seq);
  });
  client.onEvent = (e) => {
    if (e.type === 'log') appendConsole([e.text]);
    else if (e.type === 'snapshot') mergeFromWorker({ sim: e.snapshot });
    else if (e.type === 'run') mergeFromWorker({ running: e.running, speed: e.speed, ...(e.reason ? { simMessage: e.reason } : {}) });
  };
  client.onRestart = (reason) => {
    setApp({ engineStatus: 'restarting', notice: `${reason}. The engine was restarted; your program is kept.` });
    inFlight = false;
    void helloAndBuild();
  };
  // The engine's hello and settings are sent now, before its worker has
  // loaded (a worker holds its messages until its script has run), so no
  // step waits for a round trip through this thread, which is busy loading
  // the UI meanwhile. The first build waits for the simulation's first
  // picture (firstBuildWhenDrawn).
  const started = helloAndBuild();
  firstBuildWhenDrawn();
  await started;
}

let firstStart = true;

/** The simulation's first picture resolves by this time after the engine's start even when nothing was drawn (an engine that failed to start). */
export const SIM_DRAWN_AT_LATEST_MS = 3000;

let simDrawnP: Promise<void> | null = null;

/**
 * Resolves once the simulation's first picture is on screen (a frame after
 * a snapshot with packets reached the store), or at SIM_DRAWN_AT_LATEST_MS.
 * What the first screen defers waits for it: the editor's mount (App.tsx)
 * and the first build (firstBuildWhenDrawn).
 */
export function simDrawn(): Promise<void> {
  return (simDrawnP ??= new Promise<void>((resolve) => {
    const drawn = (s: ReturnType<typeof useApp.getState>) => (s.sim?.packets ?? 0) > 0;
    const latest = setTimeout(resolve, SIM_DRAWN_AT_LATEST_MS);
    const seen = (): void => {
      unsubscribe();
      clearTimeout(latest);
      requestAnimationFrame(() => setTimeout(resolve, 0));
    };
    const unsubscribe = useApp.subscribe((s) => {
      if (drawn(s)) seen();
    });
    if (drawn(useApp.getState())) seen();
  }));
}

/**
 * The first build starts with the simulation's first picture (simDrawn). A
 * cold build (the system headers, compile and verify by a worker whose code
 * has not warmed up) takes ~0.6 s of CPU: sent at once, it ran beside the
 * engine's start and the UI's on two cores. Its result is needed only with
 * the editor, which is mounted after that same picture. Side by side (5
 * settled starts each), deferring it brought the simulation on screen from
 * 834 to 622 ms and the editor with the build from 1950 to 1824 ms
 * (medians). Preloading Monaco as well (at the start, after the engine's
 * hello, or at the first snapshot) gave the editor nothing beyond noise and
 * the simulation back 0.16-0.3 s. An edit before then builds at once, and
 * this one is then not needed.
 */
function firstBuildWhenDrawn(): void {
  void simDrawn().then(() => {
    if (!inFlight && useApp.getState().build === null) void build(useApp.getState().workspace);
  });
}

/**
 * While the app starts, free-running traffic takes at most this share of
 * the engine worker's wall clock, until the editor is up (editorUp) or
 * STARTUP_SHARE_MS have passed. Measured side by side on 2 cores (settled
 * contexts, 6 starts each): a quarter share brought the simulation on
 * screen from 968 to 874 ms (medians) and the editor from 2625 to 2378 ms.
 */
export const STARTUP_RUN_SHARE = 0.25;
export const STARTUP_SHARE_MS = 5_000;

/** The editor has been created: the simulation may have the whole of its core again. */
export function editorUp(): void {
  if (client) void client.call('setRunShare', 1, 0).catch(() => {});
}

/** Greet a new engine worker (at start, after a restart), apply the settings, and start the traffic; after a restart, rebuild and re-attach. */
async function helloAndBuild(): Promise<void> {
  const wasRunning = useApp.getState().running;
  const restarted = !firstStart;
  firstStart = false;
  const c = engine();
  const hello = c.call('hello');
  const settings = useApp.getState().sim?.settings ?? bootSettings;
  const configured = settings ? c.call('simConfigure', settings) : null;
  if (restarted) requestBuild(0);
  else void c.call('setRunShare', STARTUP_RUN_SHARE, STARTUP_SHARE_MS);
  const h = await hello;
  setApp({ engineStatus: 'ready', engineJit: h.jit, examples: h.examples });
  if (configured) await configured;
  // The default example opens with traffic running (after a restart: as it was).
  if (!restarted || wasRunning) {
    await uiPainted;
    const r = await c.call('setRun', true, useApp.getState().speed);
    setApp({ running: r.running });
  }
}

/**
 * The user edited the program. The build starts on the keystroke when none
 * is running; while one runs, only the newest text waits for it. So the
 * result for the last keystroke never waits for a timer, and fast typing
 * costs at most one build per build time, not one per key.
 */
export function setSource(source: string): void {
  setFileText(useApp.getState().workspace.main, source);
}

/** One file's text changed (the editor's active tab, a fix, an exercise's starter code). */
export function setFileText(path: string, text: string): void {
  const ws = useApp.getState().workspace;
  const files = ws.files.some((f) => f.path === path) ? ws.files.map((f) => (f.path === path ? { path, text } : f)) : [...ws.files, { path, text }];
  setWorkspace({ ...ws, files });
}

/** The store's fields for a workspace (the active file kept when it still exists). */
function workspacePatch(ws: Workspace): { workspace: Workspace; source: string; activeFile: string } {
  const active = useApp.getState().activeFile;
  return { workspace: ws, source: mainText(ws), activeFile: ws.files.some((f) => f.path === active) ? active : ws.main };
}

/** The workspace changed (an edit, files added, renamed or removed, a new main file or flags): rebuild now. */
export function setWorkspace(ws: Workspace, opts: { example?: string | null } = {}): void {
  setApp({ ...workspacePatch(ws), exampleName: opts.example ?? null });
  if (debounce) clearTimeout(debounce);
  debounce = null;
  void build(ws);
}

export function loadExample(name: string): void {
  const ex = useApp.getState().examples.find((e) => e.name === name);
  if (!ex) return;
  setApp({ ...workspacePatch(singleFileWorkspace(ex.source)), exampleName: ex.name, selectedPc: null, selectedLine: null });
  // The machine the example was written for (no setup: the default machine), then the program on it.
  const d = DEFAULT_SETTINGS.driver;
  const s = ex.setup ?? {};
  const machine = { model: s.model ?? d.model, nic: s.nic ?? d.nic, queues: s.queues ?? d.queues, xdpMode: s.xdpMode ?? d.xdpMode, redirect: s.redirect ?? d.redirect, entryProg: 'none' as const, xsk: s.xsk ?? d.xsk };
  void engine()
    .call('simConfigure', { driver: machine })
    .then((r) => (r.ok ? mergeFromWorker({ sim: r.snapshot, simMessage: null }) : setApp({ simMessage: r.reason })))
    .catch((e: unknown) => setApp({ notice: `applying the example's machine failed: ${(e as Error).message}` }))
    .finally(() => requestBuild(0));
}

function requestBuild(delay: number): void {
  if (debounce) clearTimeout(debounce);
  debounce = setTimeout(() => {
    debounce = null;
    void build(useApp.getState().workspace);
  }, delay);
}

/** At most one build in flight; while it runs only the newest source waits. */
async function build(ws: Workspace): Promise<void> {
  if (inFlight) {
    queued = ws;
    return;
  }
  const source = mainText(ws);
  inFlight = true;
  setApp({ building: true });
  try {
    const b = buildClient!;
    markMilestone('requested', source, -1);
    const { result, attach } = await b.call('check', ws);
    markMilestone('answered', source, result.seq);
    // A result for text that has changed since is dropped unseen: the newer
    // build is already queued, and rendering this one would only delay it.
    if (useApp.getState().workspace === ws) {
      mergeFromWorker({ build: result });
      // Not awaited: the next build need not wait for the simulation to
      // take this program. The engine worker handles attaches in order; if
      // it restarts, it rebuilds and re-attaches by itself (onRestart).
      engine().call('attach', attach).then(
        () => markMilestone('attached', source, result.seq),
        () => {},
      );
    }
  } catch (e) {
    const message = (e as Error).message;
    mergeFromWorker({ build: stoppedBuild(ws, message) });
  } finally {
    inFlight = false;
    const next = queued;
    queued = null;
    if (next !== null) void build(next);
    else setApp({ building: false });
  }
}

/** What the panes show for a build that was stopped (timeout, crash): honest, and nothing attached. */
function stoppedBuild(ws: Workspace, message: string): BuildResult {
  const failed = { status: 'failed' as const, message: `build stopped: ${message}` };
  return { seq: -1, source: mainText(ws), workspace: ws, diagnostics: [], compile: failed, disasm: failed, verify: failed };
}
