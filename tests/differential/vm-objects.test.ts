/**
 * The VM against the kernel (BPF_PROG_TEST_RUN through the oracle) for the
 * issue 13 runtime pieces the oracle can create: LPM_TRIE lookups, updates
 * and deletes; global data through value relocations with a frozen
 * BPF_F_RDONLY_PROG .rodata and a BPF_F_MMAPABLE .bss; bpf_xdp_load_bytes
 * and bpf_xdp_store_bytes; the ring buffer helpers' return values. Each
 * program runs in both engines on the same packets and must match the
 * kernel's return value, packet bytes and maps. (Tail calls, perf event
 * arrays with a reader and map-in-map need what the oracle cannot set up:
 * tests/unit/vm-objects.test.ts covers them.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { assemble, bytesToHex, encodeProgram, parseSpec, type ProgramSpec } from '../../src/isa';
import { createVm, testRunFrame } from '../../src/vm';
import { Oracle, oracleAvailable, type OracleResult, type OracleSpec } from './oracle';

function asm(text: string): { hex: string; lddw: number[] } {
  const a = assemble(text);
  if (a.errors.length) throw new Error(`${a.errors[0]!.line}: ${a.errors[0]!.message}`);
  return { hex: bytesToHex(encodeProgram(a.insns)), lddw: a.insns.flatMap((x, k) => (x.code === 0x18 ? [k] : [])) };
}

const sortMaps = (maps: { entries: { key: string; value: string | string[] }[] }[] | undefined): unknown =>
  (maps ?? []).map((m) => [...m.entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));

const avail = oracleAvailable();

describe.skipIf(!avail.ok)('VM vs kernel: LPM trie, global data, load/store bytes, ring buffers, may_goto', () => {
  const oracle = avail.ok ? new Oracle() : undefined;
  afterAll(() => oracle?.close());

  async function agree(spec: ProgramSpec, packets: string[]): Promise<void> {
    const res: OracleResult = await oracle!.ask({ ...spec, log_level: 1, dump_maps: true, runs: packets.map((data) => ({ data })) } as OracleSpec);
    expect(res.accepted, res.verifier_log.split('\n').slice(-4).join('\n')).toBe(true);
    for (const engine of ['jit', 'interp'] as const) {
      const parsed = parseSpec(spec);
      if ('error' in parsed) throw new Error(parsed.error);
      const vm = createVm(parsed, { engine });
      if ('error' in vm) throw new Error(vm.error);
      const runs = packets.map((p) => {
        const frame = testRunFrame(Buffer.from(p, 'hex'));
        const r = vm.runXdp(frame);
        expect(r.fault, `${engine}: ${r.fault?.message}`).toBeUndefined();
        return { retval: r.retval, data_out: bytesToHex(frame.buf.subarray(r.dataMeta, r.dataEnd)) };
      });
      expect(runs, engine).toEqual(res.runs.map((r) => ({ retval: r.retval, data_out: r.data_out })));
      // The kernel lists event maps (ringbuf) with no entries; so do we.
      expect(sortMaps(vm.maps.map((m) => m.dump())), `${engine} maps`).toEqual(sortMaps(res.maps));
    }
  }

  it('may_goto falls through while the loop budget lasts; its target is reached only when spent', async () => {
    // A loop of 100 rounds guarded by may_goto: the budget (8M) is far from spent, so every round falls through.
    const p = asm(`
      r0 = 0
      r1 = 100
    loop:
      may_goto done
      r0 += 3
      r1 += -1
      if r1 != 0x0 goto loop
      exit
    done:
      r0 = 1
      exit`);
    await agree({ prog_type: 'xdp', insns: p.hex }, ['00'.repeat(64)]);
  });

  it('an exit with a non-zero off is an exit (the kernel checks only its src, dst and imm)', async () => {
    await agree({ prog_type: 'xdp', insns: 'b7000000020000009500040000000000' }, ['00'.repeat(64)]);
  });

  it('LPM trie: longest prefix match, update, delete', async () => {
    // key = {u32 prefixlen, 4 address bytes}: look up packet bytes 0-3 as /32; then insert packet bytes 4-7
    // with prefix length byte 8 % 33 (value = that length), and delete the prefix of bytes 9-12 / byte 13 % 33.
    const p = asm(`
      r6 = r1
      r2 = *(u32 *)(r6 +0)
      r3 = *(u32 *)(r6 +4)
      r4 = r2
      r4 += 16
      if r4 > r3 goto out
      r7 = r2
      r1 = 32
      *(u32 *)(r10 -8) = r1
      r1 = *(u32 *)(r7 +0)
      *(u32 *)(r10 -4) = r1
      r1 = 0x0 ll
      r2 = r10
      r2 += -8
      call bpf_map_lookup_elem#1
      r8 = 0
      if r0 == 0x0 goto ins
      r8 = *(u32 *)(r0 +0)
    ins:
      r1 = *(u8 *)(r7 +8)
      r1 %= 33
      *(u32 *)(r10 -8) = r1
      *(u32 *)(r10 -12) = r1
      r1 = *(u32 *)(r7 +4)
      *(u32 *)(r10 -4) = r1
      r1 = 0x0 ll
      r2 = r10
      r2 += -8
      r3 = r10
      r3 += -12
      r4 = 0
      call bpf_map_update_elem#2
      r9 = r0
      r1 = *(u8 *)(r7 +13)
      r1 %= 33
      *(u32 *)(r10 -8) = r1
      r1 = *(u32 *)(r7 +9)
      *(u32 *)(r10 -4) = r1
      r1 = 0x0 ll
      r2 = r10
      r2 += -8
      call bpf_map_delete_elem#3
      *(u32 *)(r7 +0) = r8
      *(u32 *)(r7 +4) = r9
      *(u32 *)(r7 +8) = r0
    out:
      r0 = 2
      exit`);
    const key = (len: number, a: number[]): string => bytesToHex(Uint8Array.from([len, 0, 0, 0, ...a]));
    const val = (v: number): string => bytesToHex(Uint8Array.from([v, 0, 0, 0]));
    const spec: ProgramSpec = {
      prog_type: 'xdp',
      insns: p.hex,
      maps: [{ name: 'lpm', type: 'lpm_trie', key_size: 8, value_size: 4, max_entries: 16, flags: 1, init: [
        { key: key(8, [10, 0, 0, 0]), value: val(8) },
        { key: key(16, [10, 1, 0, 0]), value: val(16) },
        { key: key(24, [10, 1, 2, 0]), value: val(24) },
        { key: key(0, [0, 0, 0, 0]), value: val(99) },
      ] }],
      map_relocs: p.lddw.map((insn) => ({ insn, map: 0 })),
    };
    const pkt = (dst: number[], ins: number[], insLen: number, del: number[], delLen: number): string => bytesToHex(Uint8Array.from([...dst, ...ins, insLen, ...del, delLen, ...new Array(50).fill(0)]));
    await agree(spec, [
      pkt([10, 1, 2, 3], [172, 16, 0, 0], 12, [1, 1, 1, 1], 32),
      pkt([10, 1, 9, 9], [172, 16, 5, 0], 24, [10, 1, 2, 0], 24),
      pkt([10, 1, 2, 3], [10, 1, 2, 128], 25, [10, 0, 0, 0], 16),
      pkt([10, 1, 2, 200], [10, 1, 2, 128], 25, [10, 0, 0, 0], 8),
      pkt([10, 200, 0, 1], [0, 0, 0, 0], 40, [0, 0, 0, 0], 0),
      pkt([172, 16, 7, 7], [0, 0, 0, 0], 33, [9, 9, 9, 9], 32),
    ]);
  });

  it('global data: value relocations, a frozen BPF_F_RDONLY_PROG .rodata, a BPF_F_MMAPABLE .bss', async () => {
    const p = asm(`
      r1 = 0x0 ll
      r2 = *(u32 *)(r1 +0)
      r3 = 0x0 ll
      r4 = *(u32 *)(r3 +0)
      r4 += r2
      *(u32 *)(r3 +0) = r4
      r5 = 0x0 ll
      r6 = *(u64 *)(r5 +0)
      r6 += 1
      *(u64 *)(r5 +0) = r6
      r0 = r4
      r0 &= 3
      exit`);
    const [ro, data, bss] = p.lddw;
    const spec: ProgramSpec = {
      prog_type: 'xdp',
      insns: p.hex,
      maps: [
        { name: 'rodata', type: 'array', key_size: 4, value_size: 16, max_entries: 1, flags: 0x80, freeze: true, init: [{ key: '00000000', value: '00000000' + '03000000' + '00'.repeat(8) }] },
        { name: 'data', type: 'array', key_size: 4, value_size: 8, max_entries: 1, init: [{ key: '00000000', value: '0100000000000000' }] },
        { name: 'bss', type: 'array', key_size: 4, value_size: 16, max_entries: 1, flags: 0x400 },
      ],
      map_relocs: [
        { insn: ro!, map: 0, kind: 'value', offset: 4 },
        { insn: data!, map: 1, kind: 'value', offset: 0 },
        { insn: bss!, map: 2, kind: 'value', offset: 8 },
      ],
    };
    await agree(spec, ['00'.repeat(20), '11'.repeat(20), '22'.repeat(30)]);
  });

  it('bpf_xdp_load_bytes / bpf_xdp_store_bytes, in range and out of it', async () => {
    const p = asm(`
      r6 = r1
      r1 = r6
      r2 = 2
      r3 = r10
      r3 += -8
      r4 = 4
      call bpf_xdp_load_bytes#189
      r7 = r0
      r1 = r6
      r2 = 10
      r3 = r10
      r3 += -8
      r4 = 4
      call bpf_xdp_store_bytes#190
      r8 = r0
      r1 = r6
      r2 = 60
      r3 = r10
      r3 += -8
      r4 = 8
      call bpf_xdp_load_bytes#189
      *(u32 *)(r10 -16) = r0
      r1 = r6
      r2 = 0
      r3 = r10
      r3 += -16
      r4 = 4
      call bpf_xdp_store_bytes#190
      r0 = r7
      r0 += r8
      r0 += 2
      exit`);
    await agree({ prog_type: 'xdp', insns: p.hex }, ['00112233445566778899aabbccddeeff'.repeat(4), '0102030405060708090a0b0c0d0e0f10'.repeat(2)]);
  });

  it('ring buffer helpers: output, reserve + submit, reserve + discard (return values)', async () => {
    const p = asm(`
      r6 = r1
      r1 = 5
      *(u64 *)(r10 -8) = r1
      r1 = 0x0 ll
      r2 = r10
      r2 += -8
      r3 = 8
      r4 = 0
      call bpf_ringbuf_output#130
      r7 = r0
      r1 = 0x0 ll
      r2 = 16
      r3 = 0
      call bpf_ringbuf_reserve#131
      if r0 == 0x0 goto out
      r1 = r0
      r2 = 0
      call bpf_ringbuf_submit#132
      r1 = 0x0 ll
      r2 = 16
      r3 = 0
      call bpf_ringbuf_reserve#131
      if r0 == 0x0 goto out
      r1 = r0
      r2 = 0
      call bpf_ringbuf_discard#133
      r0 = r7
      r0 += 2
      exit
    out:
      r0 = 1
      exit`);
    await agree({ prog_type: 'xdp', insns: p.hex, maps: [{ name: 'rb', type: 'ringbuf', key_size: 0, value_size: 0, max_entries: 4096 }], map_relocs: p.lddw.map((insn) => ({ insn, map: 0 })) }, ['00'.repeat(20)]);
  });
});
