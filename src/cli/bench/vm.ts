/**
 * Benchmark section 'vm': ns per packet of the VM on an xdp1-like program
 * (parse Ethernet and IPv4, count the IP protocol in a percpu_array, drop),
 * beside the kernel running the same bytecode through BPF_PROG_TEST_RUN
 * with a large repeat (duration_ns is the kernel's own per-run average).
 * The VM is measured twice, the JIT (the default engine) and the reference
 * interpreter, on their own instances with the same frame; all three are
 * measured in this one run and the ratios are the figures of merit.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assemble, bytesToHex, encodeProgram, parseSpec } from '../../isa';
import { createVm, testRunFrame } from '../../vm';
import type { CliIO } from '../io';

/** xdp1 (samples/bpf/xdp1_kern.c), IPv4 path, in kernel-log syntax. */
export const XDP1_ASM = `
  r2 = *(u32 *)(r1 +0)
  r3 = *(u32 *)(r1 +4)
  r4 = r2
  r4 += 14
  if r4 > r3 goto drop
  r5 = *(u16 *)(r2 +12)
  r0 = 0
  if r5 != 0x8 goto count
  r4 = r2
  r4 += 34
  if r4 > r3 goto count
  r0 = *(u8 *)(r2 +23)
count:
  *(u32 *)(r10 -4) = r0
  r2 = r10
  r2 += -4
  r1 = 0x0 ll
  call bpf_map_lookup_elem#1
  if r0 == 0x0 goto drop
  r1 = *(u64 *)(r0 +0)
  r1 += 1
  *(u64 *)(r0 +0) = r1
drop:
  r0 = 1
  exit
`;

/** A 64-byte Ethernet/IPv4/UDP frame. */
export const UDP_FRAME_HEX =
  '02000000000102000000000208004500' + '00320000400040110000c0a80001c0a8' + '00020400040000' + '1e0000' + '00'.repeat(27);

export function xdp1Spec(): { prog_type: 'xdp'; insns: string; maps: { type: 'percpu_array'; key_size: number; value_size: number; max_entries: number; name: string }[]; map_relocs: { insn: number; map: number }[] } {
  const a = assemble(XDP1_ASM);
  if (a.errors.length) throw new Error(`xdp1: ${a.errors[0]!.message}`);
  const slot = a.insns.findIndex((i) => i.code === 0x18);
  return {
    prog_type: 'xdp',
    insns: bytesToHex(encodeProgram(a.insns)),
    maps: [{ name: 'rxcnt', type: 'percpu_array', key_size: 4, value_size: 8, max_entries: 256 }],
    map_relocs: [{ insn: slot, map: 0 }],
  };
}

function oraclePath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return process.env.BPF_ORACLE ?? path.resolve(here, '../../../../shared/oracle/bpf-oracle');
}

export async function bench(io: CliIO, opts: { quick: boolean }): Promise<void> {
  const spec = xdp1Spec();
  const parsed = parseSpec(spec);
  if ('error' in parsed) throw new Error(parsed.error);
  const frame = testRunFrame(Buffer.from(UDP_FRAME_HEX, 'hex'));
  const n = opts.quick ? 200_000 : 2_000_000;
  const measure = (engine: 'jit' | 'interp'): { ns: number; retval: number; insns: number; count: bigint } => {
    const vm = createVm(parsed, { engine });
    if ('error' in vm) throw new Error(vm.error);
    // Warm up the JS engine's own JIT, then measure. The machine is shared, so
    // the clock is this process's CPU time (user + system), not wall time, and
    // the best of 3 rounds damps cache effects of other load.
    for (let i = 0; i < 50_000; i++) vm.runXdp(frame);
    let best = Infinity;
    let retval = 0;
    for (let round = 0; round < 3; round++) {
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i++) retval = vm.runXdp(frame).retval;
      const c = process.cpuUsage(c0);
      best = Math.min(best, ((c.user + c.system) * 1000) / n);
    }
    const r = vm.runXdp(frame);
    // The counter the program bumps (rxcnt[IPPROTO_UDP]): both engines must have counted every packet.
    const v = vm.maps[0]!.lookup(new Uint8Array([17, 0, 0, 0]), 0)!;
    return { ns: best, retval, insns: r.insns, count: new DataView(v.buffer, v.byteOffset).getBigUint64(0, true) };
  };
  const interp = measure('interp');
  const jit = measure('jit');
  const last = jit.retval;
  io.out(`  xdp1 (IPv4/UDP 64 B, percpu_array count, XDP_DROP): ${jit.insns} insns/packet (interpreter: ${interp.insns})\n`);
  io.out(`  interpreter: ${interp.ns.toFixed(1)} ns/packet CPU time, best of 3 x ${n} packets (retval ${interp.retval}, rxcnt[17] ${interp.count})\n`);
  io.out(`  jit:         ${jit.ns.toFixed(1)} ns/packet CPU time, best of 3 x ${n} packets (retval ${jit.retval}, rxcnt[17] ${jit.count})\n`);
  io.out(`  ratio interpreter/jit: ${(interp.ns / jit.ns).toFixed(1)}x faster (${(1000 / jit.ns).toFixed(1)} Mpps on one core)\n`);
  const vmNs = jit.ns;

  const repeat = opts.quick ? 1_000_000 : 10_000_000;
  const res = spawnSync(oraclePath(), ['-'], { input: JSON.stringify({ ...spec, log_level: 0, runs: [{ data: UDP_FRAME_HEX, repeat }] }), encoding: 'utf8' });
  let kernelNs: number | undefined;
  let why = '';
  try {
    const o = JSON.parse(res.stdout) as { available: boolean; accepted?: boolean; error?: string; runs?: { duration_ns: number; retval: number }[] };
    if (!o.available) why = `kernel oracle unavailable: ${o.error}`;
    else if (!o.accepted) why = `kernel rejected the program: ${o.error}`;
    else {
      kernelNs = o.runs![0]!.duration_ns;
      if (o.runs![0]!.retval !== last) why = `retval differs: kernel ${o.runs![0]!.retval}, vm ${last}`;
    }
  } catch {
    why = `kernel oracle failed: ${(res.stderr || String(res.error)).trim().split('\n')[0]}`;
  }
  if (kernelNs === undefined) {
    io.out(`  kernel:      not measured (${why})\n`);
    return;
  }
  io.out(`  kernel:      ${kernelNs} ns/packet (BPF_PROG_TEST_RUN, repeat ${repeat}, duration_ns)${why ? `  WARNING: ${why}` : ''}\n`);
  io.out(`  ratio jit/kernel: ${(vmNs / Math.max(kernelNs, 1)).toFixed(1)}x   interpreter/kernel: ${(interp.ns / Math.max(kernelNs, 1)).toFixed(1)}x\n`);
}
