/**
 * xdp-lab sim: the driver simulation, headless.
 *
 *   sim --list                                   the named seed scenarios
 *   sim --scenario NAME [--json] [--no-trace]    run one; prints model next to published
 *       (--no-trace: no event trace at all, so no trace_hash; the counters and profile are the same)
 *   sim --prog xdp1|xdp2|xdp_pass|SPEC.json|FILE.c [--traffic PROFILE | --pcap F]
 *       [--packets N] [--hw NAME] [--rx-ring N] [--tx-ring N] [--no-cache] [--mtu N] [--seed N] [--json]
 *       [--native]  the simulator's TS reference programs instead of compiled bytecode in the VM
 *       [--verify]  run the verifier first and refuse a rejected program
 *
 * Prints the counters, the page cache statistics, the achieved rate and
 * the profile by kernel function name; --json adds "wall": the wall-clock
 * seconds the run took and simulated packets per wall second.
 */
import { compileFile, splitCcFlags } from '../ccflags';
import { parseArgs, parseJson, readBinaryFile, readTextFile, UsageError, type CliIO } from '../io';
import { readCapture, wireRecords, PcapError, TRAFFIC_PROFILES, type TrafficSpec } from '../../net';
import {
  findScenario,
  HARDWARE_PROFILES,
  nativePrograms,
  runScenario,
  SCENARIOS,
  Simulation,
  type ProgramResolver,
  type ScenarioProgram,
  type XdpHook,
} from '../../sim';
import { loadChecked, specProgram, verifyProgram } from '../../engine/pipeline';
import { examplePrograms, scenarioProgramSpec } from '../../engine/programs';

const BUILTIN = ['xdp1', 'xdp2', 'xdp_pass'] as const;

export async function run(args: string[], io: CliIO): Promise<number> {
  const { ccFlags, rest } = splitCcFlags(args);
  const { positional, flags, options } = parseArgs(rest, {
    flags: ['list', 'json', 'no-cache', 'native', 'verify', 'no-trace'],
    options: ['scenario', 'prog', 'traffic', 'pcap', 'packets', 'hw', 'rx-ring', 'tx-ring', 'mtu', 'seed'],
  });
  if (positional.length) throw new UsageError(`unexpected argument '${positional[0]}'`);
  if (flags.has('list')) {
    for (const s of SCENARIOS) io.out(flags.has('json') ? '' : `${s.name.padEnd(30)} ${s.title}\n`);
    if (flags.has('json')) io.out(`${JSON.stringify(SCENARIOS.map((s) => ({ name: s.name, title: s.title, published: s.published })), null, 2)}\n`);
    return 0;
  }
  const packets = options.has('packets') ? intOption(options.get('packets')!, 'packets', 1, 1e9) : undefined;
  const seed = options.has('seed') ? intOption(options.get('seed')!, 'seed', 0, 2 ** 32 - 1) : 1;
  const verify = flags.has('verify');
  const resolver: ProgramResolver = flags.has('native') ? nativePrograms : scenarioPrograms(verify);

  if (options.has('scenario')) {
    const name = options.get('scenario')!;
    const s = findScenario(name);
    if (!s) throw new UsageError(`unknown scenario '${name}' (see: xdp-lab sim --list)`);
    const t0 = performance.now();
    const r = runScenario(s, { programs: resolver, packets, seed, trace: !flags.has('no-trace') });
    const wall = wallOf(performance.now() - t0, s.warmup + (packets ?? s.measure));
    if (flags.has('json')) {
      io.out(`${JSON.stringify({ ...r, ...(flags.has('no-trace') ? { trace_hash: null } : {}), wall }, null, 2)}\n`);
      return 0;
    }
    io.out(`${r.scenario}: ${r.title}\n`);
    io.out(`  hardware: ${r.hw}   program: ${r.program ?? '(none)'}${r.program_engine ? ` [${r.program_engine}]` : ''}${r.other_programs.map((o) => `   ${o.role}: ${o.name} [${o.engine}]`).join('')}\n`);
    io.out(`  rate:  ${(r.rate_pps / 1e6).toFixed(2)} Mpps${r.published.rate_pps ? `   (published ${(r.published.rate_pps / 1e6).toFixed(2)} Mpps)` : ''}\n`);
    io.out(`  idle:  ${r.idle_percent.toFixed(1)}%${r.published.idle_percent !== undefined ? `   (published ~${r.published.idle_percent}%)` : ''}\n`);
    for (const p of r.published.profiles ?? []) io.out(`  published profile (${p.source}): ${Object.entries(p.symbols).map(([k, v]) => `${k} ${v.toFixed(2)}%`).join(', ')}\n`);
    io.out(`  source: ${r.published.source}\n`);
    printProfile(io, r.profile);
    printCounters(io, r.counters);
    return 0;
  }

  if (!options.has('prog')) throw new UsageError('give --prog FILE (or --scenario NAME, or --list)');
  const progArg = options.get('prog')!;
  let prog: XdpHook;
  if ((BUILTIN as readonly string[]).includes(progArg)) prog = resolver(progArg as Exclude<ScenarioProgram, null>);
  else prog = loadProgramFile(progArg, verify, ccFlags);

  let traffic: TrafficSpec;
  if (options.has('pcap')) {
    if (options.has('traffic')) throw new UsageError('give either --traffic or --pcap, not both');
    const file = options.get('pcap')!;
    try {
      const { records, runts } = wireRecords(readCapture(readBinaryFile(file)).records);
      if (records.length === 0) throw new UsageError(`${file}: the pcap file holds no packets${runts ? ` (${runts} record${runts === 1 ? '' : 's'} shorter than an Ethernet header)` : ''}`);
      if (runts) io.err(`${file}: ${runts} record${runts === 1 ? '' : 's'} shorter than an Ethernet header (14 bytes) left out\n`);
      traffic = { linkGbps: 40, pcap: { records } };
    } catch (e) {
      if (e instanceof PcapError) throw new UsageError(`${file}: ${e.message}`);
      throw e;
    }
  } else {
    const name = options.get('traffic') ?? 'seed000-pktgen';
    const p = TRAFFIC_PROFILES[name];
    if (!p) throw new UsageError(`unknown traffic profile '${name}' (known: ${Object.keys(TRAFFIC_PROFILES).join(', ')})`);
    traffic = p.spec();
  }
  const hw = options.get('hw') ?? 'seed2016-e5-1630v3-cx3';
  if (!HARDWARE_PROFILES[hw]) throw new UsageError(`unknown hardware profile '${hw}' (known: ${Object.keys(HARDWARE_PROFILES).join(', ')})`);
  let sim: Simulation;
  try {
    sim = new Simulation(
      {
        hw,
        traffic,
        rxRingSize: options.has('rx-ring') ? intOption(options.get('rx-ring')!, 'rx-ring', 2, 8192) : 1024,
        txRingSize: options.has('tx-ring') ? intOption(options.get('tx-ring')!, 'tx-ring', 2, 8192) : 512,
        memoryPages: 8192,
        pageCache: !flags.has('no-cache'),
        mtu: options.has('mtu') ? intOption(options.get('mtu')!, 'mtu', 68, 9600) : 1500,
        seed,
        trace: false,
      },
      prog,
    );
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const n = packets ?? (options.has('pcap') ? Infinity : 200_000);
  const t0 = performance.now();
  if (n === Infinity) while (sim.stepEvent());
  else {
    sim.run({ packets: Math.min(n, 20_000) >> 2 });
    sim.markWindow();
    sim.run({ packets: n });
  }
  const wall = wallOf(performance.now() - t0, sim.nic.packetsDone);
  const snap = sim.snapshot();
  const q = snap.queues[0]!;
  const out = {
    program: prog.name,
    program_engine: prog.engine,
    hw: snap.hw.name,
    mode: snap.mode,
    rates: snap.rates,
    idle_percent: Math.round(sim.idlePercent(0) * 100) / 100,
    page_cache: { size: q.cache.size, level: q.cache.level, put: snap.counters.cache_put, get: snap.counters.cache_get, full: snap.counters.cache_full, empty: snap.counters.cache_empty },
    counters: snap.counters,
    profile: snap.profile.map((e) => ({ symbol: e.symbol, percent: Math.round(e.percent * 100) / 100 })),
    maps: prog.mapsSummary?.() ?? {},
    warnings: snap.warnings,
    wall,
  };
  if (flags.has('json')) {
    io.out(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  }
  io.out(`program: ${out.program} [${out.program_engine}]   hardware: ${out.hw}   rx buffers: ${out.mode}\n`);
  const r = snap.rates;
  io.out(`rate: offered ${(r.offered_pps / 1e6).toFixed(2)} Mpps, processed ${(r.processed_pps / 1e6).toFixed(2)} Mpps (drop ${(r.xdp_drop_pps / 1e6).toFixed(2)}, pass ${(r.xdp_pass_pps / 1e6).toFixed(2)}, tx ${(r.tx_pps / 1e6).toFixed(2)}), rx_missed ${(r.rx_missed_pps / 1e6).toFixed(2)} Mpps; idle ${out.idle_percent.toFixed(1)}%\n`);
  const pc = out.page_cache;
  io.out(`page cache: level ${pc.level}/${pc.size}, recycled ${pc.put}, refills from cache ${pc.get}, cache full ${pc.full}, cache empty ${pc.empty}\n`);
  for (const w of out.warnings) io.out(`warning: ${w}\n`);
  printProfile(io, out.profile);
  printCounters(io, out.counters);
  return 0;
}

/**
 * The scenarios' programs: compiled examples in the VM (src/engine/programs.ts). With
 * --verify the verifier judges each first and a rejected one is refused, as
 * the kernel would refuse to load it.
 */
function scenarioPrograms(verify: boolean): ProgramResolver {
  return (name) => {
    if (verify) {
      const v = verifyProgram(scenarioProgramSpec(name), { logLevel: 1 });
      if (!v.accepted) throw new UsageError(`${name}.c: rejected by the verifier: ${v.error ?? 'invalid program'}`);
    }
    return examplePrograms(name);
  };
}

/** A program file (C, or a spec) through the pipeline: compile, (verify,) load. */
function loadProgramFile(file: string, verify: boolean, ccFlags: string[]): XdpHook {
  // C: includes read from disk with clang's flags, as `xdp-lab compile` reads them.
  const parsed = file.endsWith('.c') ? compiledFile(file, ccFlags) : specProgram(parseJson(readTextFile(file), file), file);
  if ('error' in parsed) throw new UsageError(parsed.error);
  const h = loadChecked(parsed, file, { verify });
  if ('error' in h) throw new UsageError(h.error);
  return h;
}

function compiledFile(file: string, ccFlags: string[]): ReturnType<typeof specProgram> {
  const r = compileFile(file, ccFlags);
  const e = r.diagnostics.find((d) => d.severity === 'error');
  if (!r.spec) return { error: e ? `${e.span.file}:${e.span.line}:${e.span.col}: ${e.message}` : `${file}: does not compile` };
  return specProgram(JSON.parse(JSON.stringify(r.spec)), file);
}

/** The run's wall-clock cost: seconds, and simulated packets handled per wall second. */
function wallOf(ms: number, packets: number): { seconds: number; packets_per_second: number } {
  const seconds = ms / 1000;
  return { seconds: Math.round(seconds * 1e4) / 1e4, packets_per_second: seconds > 0 ? Math.round(packets / seconds) : 0 };
}

function intOption(v: string, name: string, min: number, max: number): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer ${min}..${max}, got '${v}'`);
  return n;
}

function printProfile(io: CliIO, profile: { symbol: string; percent: number }[]): void {
  io.out('  profile (perf report --no-children, one core):\n');
  for (const e of profile.slice(0, 16)) io.out(`    ${e.percent.toFixed(2).padStart(6)}%  ${e.symbol}\n`);
}

function printCounters(io: CliIO, c: object): void {
  const nz = Object.entries(c).filter(([, v]) => v !== 0);
  io.out(`  counters: ${nz.map(([k, v]) => `${k}=${v}`).join(' ')}\n`);
}
