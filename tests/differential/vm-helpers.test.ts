/**
 * XDP helpers, context and maps in the VM against the kernel: each case is a
 * small program whose helper return codes and effects end up in the packet
 * (or the maps), run in both and compared: retval, data_out, map contents.
 * BPF_PROG_TEST_RUN's data_out starts at data_meta (metadata included).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { assemble, bytesToHex, encodeProgram, parseSpec, type MapSpec } from '../../src/isa';
import { createVm, testRunFrame } from '../../src/vm';
import { helperNotOffered, Oracle, oracleAvailable, oracleFib, warnHelperNotOffered } from './oracle';

const avail = oracleAvailable();

function possibleCpus(): number {
  const text = readFileSync('/sys/devices/system/cpu/possible', 'utf8').trim();
  return text.split(',').reduce((n, part) => {
    const [lo, hi] = part.split('-').map(Number);
    return n + (hi === undefined ? 1 : hi - lo! + 1);
  }, 0);
}

const PKT = '02000000000102000000000208004500003200004000401100000a0000010a000002' + '0400040000001e0000' + 'ab'.repeat(21);

interface Case {
  name: string;
  asm: string;
  maps?: MapSpec[];
  packets?: string[];
}

/** Reload data/data_end into r2/r3 and store r7 (a helper's return) at data[0..4) when the packet has room. */
const STORE_R7 = `
  ldxw %r2, [%r6+0]
  ldxw %r3, [%r6+4]
  mov %r4, %r2
  add %r4, 14
  jgt %r4, %r3, +1
  stxw [%r2+0], %r7
  mov %r0, 2
  exit`;

const adjust = (helper: number, delta: number): Case => ({
  name: `helper ${helper} delta ${delta}`,
  asm: `mov %r6, %r1\nmov %r1, %r6\nmov %r2, ${delta}\ncall ${helper}\nmov %r7, %r0\n${STORE_R7}`,
});

const CASES: Case[] = [
  ...[-8, 8, -216, -217, -300, 50, 51].map((d) => adjust(44, d)), // xdp_adjust_head
  ...[-10, 10, -50, -51, 3456, 3457].map((d) => adjust(65, d)), // xdp_adjust_tail
  ...[-4, -8, -32, -36, -216, -220, -3, 4, 0].map((d) => adjust(54, d)), // xdp_adjust_meta
  {
    name: 'adjust_meta then adjust_head moves the metadata with the data',
    asm: `mov %r6, %r1\nmov %r2, -8\ncall 54\nldxw %r2, [%r6+8]\nldxw %r3, [%r6+0]\nmov %r4, %r2\nadd %r4, 8\njgt %r4, %r3, +1\nstdw [%r2+0], 0x1234567\nmov %r1, %r6\nmov %r2, -20\ncall 44\nmov %r7, %r0\n${STORE_R7}`,
  },
  {
    name: 'ctx fields and xdp_get_buff_len',
    asm: `mov %r6, %r1\nldxw %r7, [%r6+12]\nldxw %r8, [%r6+16]\nmov %r1, %r6\ncall 188\nldxw %r2, [%r6+0]\nldxw %r3, [%r6+4]\nmov %r4, %r2\nadd %r4, 20\njgt %r4, %r3, +4\nstxw [%r2+0], %r7\nstxw [%r2+4], %r8\nstxw [%r2+8], %r0\nmov %r0, 2\nexit`,
  },
  {
    name: 'csum_diff',
    asm: `mov %r6, %r1\nstdw [%r10-8], 0x12345678\nstdw [%r10-16], -0x789abcdf\nmov %r1, %r10\nadd %r1, -8\nmov %r2, 8\nmov %r3, %r10\nadd %r3, -16\nmov %r4, 8\nmov %r5, 0xffff\ncall 28\nmov %r7, %r0\n${STORE_R7}`,
  },
  {
    name: 'csum_diff with a bad size',
    asm: `mov %r6, %r1\nstdw [%r10-8], 1\nmov %r1, %r10\nadd %r1, -8\nmov %r2, 6\nmov %r3, 0\nmov %r4, 0\nmov %r5, 0\ncall 28\nmov %r7, %r0\n${STORE_R7}`,
  },
  {
    name: 'xdp_load_bytes / xdp_store_bytes',
    asm: `mov %r6, %r1\nmov %r1, %r6\nmov %r2, 2\nmov %r3, %r10\nadd %r3, -8\nmov %r4, 8\ncall 189\nmov %r7, %r0\nmov %r1, %r6\nmov %r2, 30\nmov %r3, %r10\nadd %r3, -8\nmov %r4, 8\ncall 190\nlsh %r0, 8\nor %r7, %r0\nmov %r1, %r6\nmov %r2, 60\nmov %r3, %r10\nadd %r3, -8\nmov %r4, 8\ncall 189\nlsh %r0, 16\nor %r7, %r0\n${STORE_R7}`,
  },
  {
    name: 'redirect: action, and flags abort',
    asm: `mov %r1, 5\nmov %r2, 0\ncall 23\nmov %r6, %r0\nmov %r1, 5\nmov %r2, 1\ncall 23\nlsh %r0, 4\nor %r0, %r6\nexit`,
  },
  {
    name: 'redirect_map on a devmap: hit, miss with fallback action, bad flags',
    maps: [{ type: 'devmap', key_size: 4, value_size: 4, max_entries: 4, init: [{ key: '00000000', value: '01000000' }] }],
    asm: `lddw %r1, 0\nmov %r2, 0\nmov %r3, 0\ncall 51\nmov %r6, %r0\nlddw %r1, 0\nmov %r2, 1\nmov %r3, 2\ncall 51\nlsh %r0, 4\nor %r6, %r0\nlddw %r1, 0\nmov %r2, 0\nmov %r3, 0x20\ncall 51\nlsh %r0, 8\nor %r0, %r6\nexit`,
  },
  {
    name: 'hash map: update flags, full map, delete, lookup and increment',
    maps: [{ type: 'hash', key_size: 4, value_size: 8, max_entries: 2 }],
    asm: `
      mov %r6, %r1
      stw [%r10-4], 1
      stdw [%r10-16], 100
      ${['0', '1', '0'].map((f, i) => `lddw %r1, 0\nmov %r2, %r10\nadd %r2, -4\nmov %r3, %r10\nadd %r3, -16\nmov %r4, ${f}\ncall 2\nstxw [%r10-${24 + 4 * i}], %r0`).join('\n')}
      stw [%r10-4], 2
      lddw %r1, 0\nmov %r2, %r10\nadd %r2, -4\nmov %r3, %r10\nadd %r3, -16\nmov %r4, 2\ncall 2\nstxw [%r10-36], %r0
      lddw %r1, 0\nmov %r2, %r10\nadd %r2, -4\nmov %r3, %r10\nadd %r3, -16\nmov %r4, 0\ncall 2\nstxw [%r10-40], %r0
      stw [%r10-4], 3
      lddw %r1, 0\nmov %r2, %r10\nadd %r2, -4\nmov %r3, %r10\nadd %r3, -16\nmov %r4, 0\ncall 2\nstxw [%r10-44], %r0
      lddw %r1, 0\nmov %r2, %r10\nadd %r2, -4\ncall 3\nstxw [%r10-48], %r0
      stw [%r10-4], 2
      lddw %r1, 0\nmov %r2, %r10\nadd %r2, -4\ncall 3\nstxw [%r10-52], %r0
      stw [%r10-4], 1
      lddw %r1, 0\nmov %r2, %r10\nadd %r2, -4\ncall 1
      jeq %r0, 0, +3
      ldxdw %r1, [%r0+0]
      add %r1, 7
      stxdw [%r0+0], %r1
      ldxw %r2, [%r6+0]
      ldxw %r3, [%r6+4]
      mov %r4, %r2
      add %r4, 32
      jgt %r4, %r3, +16
      ${[0, 1, 2, 3, 4, 5, 6, 7].map((k) => `ldxw %r1, [%r10-${24 + 4 * k}]\nstxw [%r2+${4 * k}], %r1`).join('\n')}
      mov %r0, 2
      exit`,
  },
  {
    name: 'percpu_array: update flags and bounds, lookup and increment',
    maps: [{ type: 'percpu_array', key_size: 4, value_size: 8, max_entries: 4 }],
    asm: `
      mov %r6, %r1
      stdw [%r10-16], 5
      ${[[0, 1], [9, 0], [1, 8], [2, 2]].map(([key, f], i) => `stw [%r10-4], ${key}\nlddw %r1, 0\nmov %r2, %r10\nadd %r2, -4\nmov %r3, %r10\nadd %r3, -16\nmov %r4, ${f}\ncall 2\nstxw [%r10-${24 + 4 * i}], %r0`).join('\n')}
      stw [%r10-4], 3
      lddw %r1, 0\nmov %r2, %r10\nadd %r2, -4\ncall 3\nstxw [%r10-40], %r0
      lddw %r1, 0\nmov %r2, %r10\nadd %r2, -4\ncall 1
      jeq %r0, 0, +3
      ldxdw %r1, [%r0+0]
      add %r1, 1
      stxdw [%r0+0], %r1
      ldxw %r2, [%r6+0]
      ldxw %r3, [%r6+4]
      mov %r4, %r2
      add %r4, 20
      jgt %r4, %r3, +10
      ${[0, 1, 2, 3, 4].map((k) => `ldxw %r1, [%r10-${24 + 4 * k}]\nstxw [%r2+${4 * k}], %r1`).join('\n')}
      mov %r0, 2
      exit`,
    packets: [PKT, PKT, PKT],
  },
  {
    name: 'trace_printk returns the formatted length',
    asm: `mov %r6, %r1\nstdw [%r10-8], 0\nstw [%r10-8], 0x253d78\nmov %r1, %r10\nadd %r1, -8\nmov %r2, 5\nmov %r3, -42\ncall 6\nmov %r7, %r0\n${STORE_R7}`,
  },
];

/** Per-cpu values differ by which cpu ran the program: compare their sum per key. */
function normalize(maps: { type: string; entries: { key: string; value: string | string[] }[] }[] | undefined): unknown {
  return (maps ?? []).map((m) => ({
    type: m.type,
    entries: m.entries
      .map((e) => ({ key: e.key, value: Array.isArray(e.value) ? e.value.reduce((s, v) => s + BigInt.asUintN(64, BigInt('0x' + (v.match(/../g) ?? []).reverse().join(''))), 0n).toString() : e.value }))
      .sort((a, b) => a.key.localeCompare(b.key)),
  }));
}

describe.skipIf(!avail.ok)('XDP helpers and maps: VM vs kernel', () => {
  const oracle = avail.ok ? new Oracle() : undefined;
  afterAll(() => oracle?.close());
  const nCpus = avail.ok ? possibleCpus() : 1;

  for (const c of CASES) {
    it(c.name, async (ctx) => {
      const a = assemble(c.asm);
      expect(a.errors).toEqual([]);
      const relocs = a.insns.flatMap((i, k) => (i.code === 0x18 && c.maps ? [{ insn: k, map: 0 }] : []));
      const spec = { prog_type: 'xdp' as const, insns: bytesToHex(encodeProgram(a.insns)), maps: c.maps ?? [], map_relocs: relocs };
      const packets = c.packets ?? [PKT];
      const parsed = parseSpec(spec);
      if ('error' in parsed) throw new Error(parsed.error);
      const run = (engine: 'jit' | 'interp') => {
        const vm = createVm(parsed, { nCpus, fib: oracleFib(), engine });
        if ('error' in vm) throw new Error(vm.error);
        const runs = packets.map((p) => {
          const frame = testRunFrame(Buffer.from(p, 'hex'));
          const ours = vm.runXdp(frame);
          expect(ours.fault).toBeUndefined();
          return { retval: ours.retval, data_out: bytesToHex(frame.buf.subarray(ours.dataMeta, ours.dataEnd)) };
        });
        return { runs, maps: normalize(vm.maps.map((m) => m.dump())) };
      };
      const ours = run('jit');
      // The reference interpreter agrees with the JIT on every case, whatever the kernel here offers.
      expect(run('interp')).toEqual(ours);
      const res = await oracle!.ask({ ...spec, log_level: 1, runs: packets.map((data) => ({ data })), dump_maps: true });
      const absent = res.accepted ? undefined : helperNotOffered(res.verifier_log);
      if (absent) {
        warnHelperNotOffered(`VM vs kernel: ${c.name}`, absent, 'this case is SKIPPED against the kernel (the interpreter and the JIT still agree)');
        ctx.skip();
      }
      expect(res.accepted, res.verifier_log).toBe(true);
      expect(ours.runs).toEqual(res.runs.map((r) => ({ retval: r.retval, data_out: r.data_out })));
      expect(ours.maps).toEqual(normalize(res.maps));
    });
  }
});
