/**
 * xdp-lab run FILE.c|SPEC.json --packets PKTS.json [--repeat N] [--json] [--cpus N]:
 * BPF_PROG_TEST_RUN semantics in the VM. Packets (a JSON list of hex
 * strings, or {data, repeat} objects as the oracle takes them) run in order
 * in one program instance; prints per packet retval and data_out, then the
 * maps, in the kernel oracle's JSON shape. As in the kernel, data_out
 * starts at data_meta: metadata the program added is part of it; with a
 * repeat the program runs that many times on the same xdp_buff, nothing
 * reset in between, as bpf_test_run does (maps see every run) and `duration_ns` is the mean CPU time of one run, as test_run
 * reports it (after warming V8 up on a twin instance, whose maps are its own). A program that faults is XDP_ABORTED (retval 0) and its fault
 * is printed; a program that fails validation is refused before any run.
 */
import { compileFile, splitCcFlags } from '../ccflags';
import { hexToBytes, parseSpec } from '../../isa';
import { createVm, testRunFrame, TEST_RUN_MAX_DATA, type XdpResult } from '../../vm';
import { parseArgs, parseJson, readTextFile, UsageError, type CliIO } from '../io';

/** FILE.c: compile it first (src/cc); warnings go to stderr, the first error is the one line. */
function compileC(file: string, ccFlags: string[], io: CliIO): unknown {
  const r = compileFile(file, ccFlags);
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  if (!r.spec) {
    const e = errors[0];
    throw new UsageError(e ? `${e.span.file}:${e.span.line}:${e.span.col}: ${e.message}` : `${file} did not compile`);
  }
  for (const d of r.diagnostics) if (d.severity === 'warning') io.err(`${d.span.file}:${d.span.line}:${d.span.col}: warning: ${d.message}\n`);
  return r.spec;
}

const ACTIONS = ['XDP_ABORTED', 'XDP_DROP', 'XDP_PASS', 'XDP_TX', 'XDP_REDIRECT'];

export async function run(args: string[], io: CliIO): Promise<number> {
  const { ccFlags, rest } = splitCcFlags(args);
  const { positional, flags, options } = parseArgs(rest, { flags: ['json'], options: ['packets', 'cpus', 'repeat'] });
  const repeatAll = Number(options.get('repeat') ?? 1);
  if (!Number.isInteger(repeatAll) || repeatAll < 1 || repeatAll > 100_000_000) throw new UsageError(`--repeat must be an integer from 1 to 100000000, got '${options.get('repeat')}'`);
  const cpus = Number(options.get('cpus') ?? 1);
  if (!Number.isInteger(cpus) || cpus < 1 || cpus > 1024) throw new UsageError(`--cpus must be an integer from 1 to 1024, got '${options.get('cpus')}'`);
  if (positional.length !== 1 || !options.has('packets')) throw new UsageError('usage: xdp-lab run FILE.c|SPEC.json --packets PKTS.json [--repeat N] [--json] [--cpus N]');
  const specFile = positional[0]!;
  const parsed = parseSpec(specFile.endsWith('.c') ? compileC(specFile, ccFlags, io) : parseJson(readTextFile(specFile), specFile));
  if ('error' in parsed) throw new UsageError(parsed.error);
  const pkts = parseJson(readTextFile(options.get('packets')!), options.get('packets')!);
  if (!Array.isArray(pkts)) throw new UsageError('packets must be a JSON list of hex strings');
  const packets = pkts.map((p, i) => {
    const obj = typeof p === 'object' && p !== null ? (p as { data?: unknown; repeat?: unknown }) : undefined;
    const hex = typeof p === 'string' ? p : obj && typeof obj.data === 'string' ? obj.data : undefined;
    if (hex === undefined) throw new UsageError(`packets[${i}] must be a hex string`);
    const b = hexToBytes(hex);
    if (typeof b === 'string') throw new UsageError(`packets[${i}]: ${b}`);
    if (b.length > TEST_RUN_MAX_DATA) throw new UsageError(`packets[${i}]: ${b.length} bytes is more than the ${TEST_RUN_MAX_DATA} a single test-run buffer holds`);
    const repeat = obj?.repeat === undefined ? repeatAll : Number(obj.repeat);
    if (!Number.isInteger(repeat) || repeat < 1 || repeat > 100_000_000) throw new UsageError(`packets[${i}].repeat must be an integer from 1 to 100000000`);
    return { bytes: b, repeat };
  });
  // Per-cpu maps hold one value per cpu (the kernel's possible cpus; --cpus to match a machine). The program runs on cpu 0.
  // One JIT share key for the run and its twin: the twin's warm-up is this VM's optimized code.
  const vm = createVm(parsed, { nCpus: cpus, jitShare: 'run' });
  if ('error' in vm) throw new UsageError(vm.error);
  const invalid = vm.machine.checkProgram();
  if (invalid) throw new UsageError(invalid.message);
  const timed = options.has('repeat') || packets.some((p) => p.repeat > 1);
  // The kernel's program is native code from the first run; ours is until V8 has optimized the
  // translation. A twin instance (its own maps, so this run's are untouched) warms it up first.
  const twin = timed ? createVm(parsed, { nCpus: cpus, jitShare: 'run' }) : undefined;
  const runs = packets.map((p) => {
    if (twin && !('error' in twin)) {
      const wf = testRunFrame(p.bytes);
      twin.testRunInto(wf, twin.runXdp(wf), Math.min(p.repeat, 50_000));
    }
    const frame = testRunFrame(p.bytes);
    // As test_run: every repetition on the same xdp_buff, the last one's result reported; the clock covers only the runs.
    // CPU time, as test_run's timer leaves out the time its task is rescheduled (bpf_test_timer_continue).
    const r: XdpResult = { retval: 0, data: 0, dataEnd: 0, dataMeta: 0, insns: 0 };
    const c0 = process.cpuUsage();
    vm.testRunInto(frame, r, p.repeat);
    const c = process.cpuUsage(c0);
    if (r.redirect) r.redirect = { ...r.redirect };
    const durationNs = Math.round(((c.user + c.system) * 1000) / p.repeat);
    const out: Record<string, unknown> = { retval: r.retval, data_out: Buffer.from(frame.buf.subarray(Math.min(r.dataMeta, r.data), r.dataEnd)).toString('hex') };
    if (r.fault) out.fault = r.fault.message;
    if (r.redirect) out.redirect = { ...r.redirect };
    out.insns = r.insns;
    if (timed) out.duration_ns = durationNs;
    return out;
  });
  const events = vm.log.events.map((e) => ({ kind: e.kind, map: e.mapName, cpu: e.cpu, data: Buffer.from(e.data).toString('hex') }));
  const result = { runs, maps: vm.maps.map((m) => m.dump()), trace_printk: vm.printed, ...(events.length ? { events, events_dropped: vm.log.dropped } : {}) };
  if (flags.has('json')) io.out(JSON.stringify(result) + '\n');
  else {
    runs.forEach((r, i) => io.out(`packet ${i}: ${ACTIONS[r.retval as number] ?? `action ${r.retval}`} (${r.insns} insns${r.duration_ns !== undefined ? `, ${r.duration_ns} ns/run` : ''})${r.fault ? `  FAULT: ${r.fault}` : ''}\n  data_out ${r.data_out}\n`));
    vm.maps.forEach((m, i) => io.out(`map ${i} ${m.name} (${m.type}): ${JSON.stringify(m.dump().entries)}\n`));
    for (const t of vm.printed) io.out(`trace_printk: ${t}\n`);
    for (const e of events) io.out(`${e.kind === 'perf' ? 'perf_event' : 'ringbuf'} ${e.map} cpu ${e.cpu}: ${e.data}\n`);
    if (vm.log.dropped) io.out(`(${vm.log.dropped} older events dropped)\n`);
  }
  return 0;
}
