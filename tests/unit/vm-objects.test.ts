/**
 * Issue 13 item 4, runtime side: global data through BPF_PSEUDO_MAP_VALUE
 * (and a frozen, BPF_F_RDONLY_PROG .rodata), tail calls over a PROG_ARRAY
 * (the kernel's limit of 33; an empty slot falls through), perf event
 * output, the ring buffer helpers, map-in-map, bpf_fib_lookup against the
 * simulated tables, spin locks. Each in both engines (the JIT where the
 * verifier accepts the program, else the interpreter; both must agree).
 * The kernel comparisons (LPM trie, value relocations, freeze and flags)
 * are in tests/differential/vm-objects.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { assemble, bytesToHex, encodeProgram, parseSpec, type ProgramSpec } from '../../src/isa';
import { createVm, FibTable, testRunFrame, type XdpResult, type XdpVm } from '../../src/vm';
import { EPERM } from '../../src/maps';

function asmHex(text: string): string {
  const a = assemble(text);
  if (a.errors.length) throw new Error(`${a.errors[0]!.line}: ${a.errors[0]!.message}`);
  return bytesToHex(encodeProgram(a.insns));
}

/** Slot indices of the lddw instructions, in order (for map_relocs). */
function lddwSlots(text: string): number[] {
  const a = assemble(text);
  return a.insns.flatMap((x, k) => (x.code === 0x18 ? [k] : []));
}

function vmOf(spec: ProgramSpec, engine: 'jit' | 'interp', extra: Parameters<typeof createVm>[1] = {}): XdpVm {
  const parsed = parseSpec(spec);
  if ('error' in parsed) throw new Error(parsed.error);
  const vm = createVm(parsed, { engine, ...extra });
  if ('error' in vm) throw new Error(vm.error);
  return vm;
}

const run = (vm: XdpVm, pkt: Uint8Array = new Uint8Array(64)): XdpResult => vm.runXdp(testRunFrame(pkt));

for (const engine of ['jit', 'interp'] as const) {
  describe(`global data (${engine})`, () => {
    const prog = `
      r1 = 0x0 ll
      r2 = *(u32 *)(r1 +0)
      r2 += 1
      *(u32 *)(r1 +0) = r2
      r3 = 0x0 ll
      r0 = *(u32 *)(r3 +0)
      r0 += r2
      exit`;
    const spec = (): ProgramSpec => {
      const [d, ro] = lddwSlots(prog);
      return {
        prog_type: 'xdp',
        insns: asmHex(prog),
        maps: [
          { name: '.data', type: 'array', key_size: 4, value_size: 16, max_entries: 1, internal: '.data', init: [{ key: '00000000', value: '00000000' + '05000000' + '00'.repeat(8) }] },
          { name: '.rodata', type: 'array', key_size: 4, value_size: 8, max_entries: 1, internal: '.rodata', flags: 0x80, freeze: true, init: [{ key: '00000000', value: '0000000064000000' }] },
        ],
        map_relocs: [
          { insn: d!, map: 0, kind: 'value', offset: 4 },
          { insn: ro!, map: 1, kind: 'value', offset: 4 },
        ],
      };
    };

    it('an lddw with a value relocation points at byte `offset` of the map value', () => {
      const vm = vmOf(spec(), engine);
      expect(run(vm).retval).toBe(100 + 6);
      expect(run(vm).retval).toBe(100 + 7);
      expect(vm.maps[0]!.dump().entries).toEqual([{ key: '00000000', value: '00000000' + '07000000' + '00'.repeat(8) }]);
    });

    it('a frozen BPF_F_RDONLY_PROG .rodata refuses user-space and program writes', () => {
      const vm = vmOf(spec(), engine);
      expect(vm.maps[1]!.userUpdate(new Uint8Array(4), new Uint8Array(8))).toBe(-EPERM);
      const w = `
        r1 = 0x0 ll
        r2 = 1
        *(u32 *)(r1 +0) = r2
        r0 = 2
        exit`;
      const s = spec();
      const bad = vmOf({ ...s, insns: asmHex(w), map_relocs: [{ insn: 0, map: 1, kind: 'value', offset: 0 }] }, engine);
      const r = run(bad);
      expect(r.fault).toMatchObject({ kind: 'readonly', pc: 3, region: 'map_value(.rodata)' });
      expect(r.retval).toBe(0);
    });
  });

  describe(`tail calls (${engine})`, () => {
    const main = `
      r6 = r1
      r1 = r6
      r2 = 0x0 ll
      r3 = 0
      call bpf_tail_call#12
      r1 = r6
      r2 = 0x0 ll
      r3 = 1
      call bpf_tail_call#12
      r0 = 1
      exit`;
    const target = `
      r2 = *(u32 *)(r1 +0)
      r3 = *(u32 *)(r1 +4)
      r4 = r2
      r4 += 1
      if r4 > r3 goto out
      r5 = 0x7e
      *(u8 *)(r2 +0) = r5
    out:
      r0 = 3
      exit`;
    const spec = (slots: { slot: number; prog: number }[]): ProgramSpec => {
      const [a, b] = lddwSlots(main);
      return {
        prog_type: 'xdp',
        insns: asmHex(main),
        maps: [{ name: 'jmp', type: 'prog_array', key_size: 4, value_size: 4, max_entries: 4, prog_slots: slots }],
        map_relocs: [{ insn: a!, map: 0 }, { insn: b!, map: 0 }],
        programs: [{ name: 'xdp_tx', insns: asmHex(target) }],
      };
    };

    it('jumps to the program in the slot, which decides the action', () => {
      const vm = vmOf(spec([{ slot: 0, prog: 0 }]), engine);
      const pkt = new Uint8Array(64);
      const frame = testRunFrame(pkt);
      const r = vm.runXdp(frame);
      expect(r.fault).toBeUndefined();
      expect(r.retval).toBe(3);
      expect(frame.buf[frame.data]).toBe(0x7e);
      expect(r.insns).toBe(5 + 9);
    });

    it('an empty slot falls through', () => {
      const r = run(vmOf(spec([{ slot: 1, prog: 0 }]), engine));
      expect(r.fault).toBeUndefined();
      // slot 0 is empty (falls through), slot 1 holds the target.
      expect(r.retval).toBe(3);
      expect(run(vmOf(spec([]), engine)).retval).toBe(1);
    });

    it('stops after 33 tail calls (MAX_TAIL_CALL_CNT), then falls through', () => {
      // A program that counts its runs in an array and tail-calls itself.
      const self = `
        r6 = r1
        r1 = 0
        *(u32 *)(r10 -4) = r1
        r2 = r10
        r2 += -4
        r1 = 0x0 ll
        call bpf_map_lookup_elem#1
        if r0 == 0x0 goto out
        r1 = *(u32 *)(r0 +0)
        r1 += 1
        *(u32 *)(r0 +0) = r1
      out:
        r1 = r6
        r2 = 0x0 ll
        r3 = 0
        call bpf_tail_call#12
        r0 = 2
        exit`;
      const [c1, c2] = lddwSlots(self);
      const s: ProgramSpec = {
        prog_type: 'xdp',
        insns: asmHex(self),
        maps: [
          { name: 'runs', type: 'array', key_size: 4, value_size: 4, max_entries: 1 },
          { name: 'jmp', type: 'prog_array', key_size: 4, value_size: 4, max_entries: 1, prog_slots: [{ slot: 0, prog: 0 }] },
        ],
        map_relocs: [{ insn: c1!, map: 0 }, { insn: c2!, map: 1 }],
        programs: [{ name: 'self', insns: asmHex(self), map_relocs: [{ insn: c1!, map: 0 }, { insn: c2!, map: 1 }] }],
      };
      const vm = vmOf(s, engine);
      expect(run(vm).retval).toBe(2);
      expect(vm.maps[0]!.dump().entries).toEqual([{ key: '00000000', value: '22000000' }]); // 1 + 33 runs
    });
  });

  describe(`perf events and ring buffers (${engine})`, () => {
    it('bpf_perf_event_output with BPF_F_CURRENT_CPU and the packet appended (BPF_F_CTXLEN_MASK)', () => {
      const p = `
        r6 = r1
        r7 = 0x1234
        *(u32 *)(r10 -8) = r7
        r1 = r6
        r2 = 0x0 ll
        r3 = 0x6ffffffff ll
        r4 = r10
        r4 += -8
        r5 = 4
        call bpf_perf_event_output#25
        r0 += 2
        exit`;
      const [m] = lddwSlots(p);
      const vm = vmOf({ prog_type: 'xdp', insns: asmHex(p), maps: [{ name: 'events', type: 'perf_event_array', key_size: 4, value_size: 4, max_entries: 4 }], map_relocs: [{ insn: m!, map: 0 }] }, engine);
      const pkt = Uint8Array.from({ length: 64 }, (_, i) => i);
      expect(run(vm, pkt).retval).toBe(2);
      expect(vm.log.events).toEqual([{ kind: 'perf', map: 0, mapName: 'events', cpu: 0, data: Uint8Array.from([0x34, 0x12, 0, 0, 0, 1, 2, 3, 4, 5]) }]);
    });

    it('ringbuf reserve + submit, reserve + discard, output', () => {
      const p = `
        r1 = 0x0 ll
        r2 = 8
        r3 = 0
        call bpf_ringbuf_reserve#131
        if r0 == 0x0 goto skip
        r1 = 0xabcd
        *(u64 *)(r0 +0) = r1
        r1 = r0
        r2 = 0
        call bpf_ringbuf_submit#132
        r1 = 0x0 ll
        r2 = 8
        r3 = 0
        call bpf_ringbuf_reserve#131
        if r0 == 0x0 goto skip
        r1 = r0
        r2 = 0
        call bpf_ringbuf_discard#133
        r1 = 7
        *(u32 *)(r10 -4) = r1
        r1 = 0x0 ll
        r2 = r10
        r2 += -4
        r3 = 4
        r4 = 0
        call bpf_ringbuf_output#130
      skip:
        r0 = 2
        exit`;
      const slots = lddwSlots(p);
      const vm = vmOf({ prog_type: 'xdp', insns: asmHex(p), maps: [{ name: 'rb', type: 'ringbuf', key_size: 0, value_size: 0, max_entries: 4096 }], map_relocs: slots.map((insn) => ({ insn, map: 0 })) }, engine);
      for (let i = 0; i < 3; i++) expect(run(vm).retval).toBe(2);
      expect(vm.log.events.map((e) => [e.kind, bytesToHex(e.data)])).toEqual([0, 1, 2].flatMap(() => [['ringbuf', 'cdab000000000000'], ['ringbuf', '07000000']]));
    });
  });

  describe(`map-in-map, fib_lookup, spin locks (${engine})`, () => {
    it('array_of_maps: the outer lookup gives the inner map, whose lookup gives its value', () => {
      const p = `
        r1 = 0
        *(u32 *)(r10 -4) = r1
        r2 = r10
        r2 += -4
        r1 = 0x0 ll
        call bpf_map_lookup_elem#1
        if r0 == 0x0 goto out
        r1 = r0
        r2 = r10
        r2 += -4
        call bpf_map_lookup_elem#1
        if r0 == 0x0 goto out
        r0 = *(u32 *)(r0 +0)
        exit
      out:
        r0 = 0
        exit`;
      const [outer] = lddwSlots(p);
      const vm = vmOf({
        prog_type: 'xdp',
        insns: asmHex(p),
        maps: [
          { name: 'outer', type: 'array_of_maps', key_size: 4, value_size: 4, max_entries: 2, inner_map: 1, init: [{ key: '00000000', value: '01000000' }] },
          { name: 'inner', type: 'array', key_size: 4, value_size: 4, max_entries: 1, init: [{ key: '00000000', value: '03000000' }] },
        ],
        map_relocs: [{ insn: outer!, map: 0 }],
      }, engine);
      expect(run(vm).retval).toBe(3);
    });

    it('bpf_fib_lookup answers from the simulated tables, which the caller can change', () => {
      // struct bpf_fib_lookup on the stack: family AF_INET, ifindex 1, tot_len 84, ipv4_dst from the packet's bytes 0-3.
      const p = `
        r6 = r1
        r2 = *(u32 *)(r6 +0)
        r3 = *(u32 *)(r6 +4)
        r4 = r2
        r4 += 4
        if r4 > r3 goto out
        r7 = *(u32 *)(r2 +0)
        r1 = 0
        *(u64 *)(r10 -64) = r1
        *(u64 *)(r10 -56) = r1
        *(u64 *)(r10 -48) = r1
        *(u64 *)(r10 -40) = r1
        *(u64 *)(r10 -32) = r1
        *(u64 *)(r10 -24) = r1
        *(u64 *)(r10 -16) = r1
        *(u64 *)(r10 -8) = r1
        r1 = 2
        *(u8 *)(r10 -64) = r1
        r1 = 84
        *(u16 *)(r10 -58) = r1
        r1 = 1
        *(u32 *)(r10 -56) = r1
        *(u32 *)(r10 -32) = r7
        r1 = r6
        r2 = r10
        r2 += -64
        r3 = 64
        r4 = 0
        call bpf_fib_lookup#69
        r8 = r0
        r2 = *(u32 *)(r6 +0)
        r3 = *(u32 *)(r6 +4)
        r4 = r2
        r4 += 16
        if r4 > r3 goto out
        r1 = *(u32 *)(r10 -56)
        *(u32 *)(r2 +4) = r1
        r1 = *(u32 *)(r10 -6)
        *(u32 *)(r2 +8) = r1
        r1 = *(u16 *)(r10 -2)
        *(u16 *)(r2 +12) = r1
        r0 = r8
        exit
      out:
        r0 = 99
        exit`;
      const fib = new FibTable();
      const vm = vmOf({ prog_type: 'xdp', insns: asmHex(p) }, engine, { fib });
      const pkt = (a: number[]): Uint8Array => Uint8Array.from([...a, ...new Array(60).fill(0)]);
      const frame = testRunFrame(pkt([8, 8, 8, 8]));
      const r = vm.runXdp(frame);
      expect(r.retval).toBe(0); // BPF_FIB_LKUP_RET_SUCCESS: the default route via 10.0.1.254 on ifindex 2
      const out = frame.buf.subarray(frame.data, frame.data + 14);
      expect([...out.subarray(4, 14)]).toEqual([2, 0, 0, 0, 0x02, 0x00, 0x00, 0x00, 0xfe, 0xfe]); // egress ifindex, then the gateway's mac
      expect(run(vm, pkt([192, 0, 2, 1])).retval).toBe(1); // blackhole
      expect(run(vm, pkt([10, 0, 0, 9])).retval).toBe(7); // connected, no neighbour
      expect(fib.set({ ...fib.get(), routes: [{ dst: '8.0.0.0/8', ifindex: 1, type: 'prohibit' }] })).toBeUndefined();
      expect(run(vm, pkt([8, 8, 8, 8])).retval).toBe(3); // BPF_FIB_LKUP_RET_PROHIBIT
      expect(run(vm, pkt([9, 9, 9, 9])).retval).toBe(4); // BPF_FIB_LKUP_RET_NOT_FWDED
      expect(fib.set({ ...fib.get(), routes: [{ dst: 'bogus', ifindex: 1 }] })).toMatch(/routes\[0\]/);
    });

    it('bpf_spin_lock / unlock in a map value', () => {
      const p = `
        r1 = 0
        *(u32 *)(r10 -4) = r1
        r2 = r10
        r2 += -4
        r1 = 0x0 ll
        call bpf_map_lookup_elem#1
        if r0 == 0x0 goto out
        r6 = r0
        r1 = r6
        call bpf_spin_lock#93
        r1 = *(u32 *)(r6 +4)
        r1 += 1
        *(u32 *)(r6 +4) = r1
        r1 = r6
        call bpf_spin_unlock#94
      out:
        r0 = 2
        exit`;
      const [m] = lddwSlots(p);
      const vm = vmOf({ prog_type: 'xdp', insns: asmHex(p), maps: [{ name: 'locked', type: 'array', key_size: 4, value_size: 8, max_entries: 1 }], map_relocs: [{ insn: m!, map: 0 }] }, engine);
      run(vm);
      expect(run(vm).retval).toBe(2);
      expect(vm.maps[0]!.dump().entries).toEqual([{ key: '00000000', value: '0000000002000000' }]);
    });
  });
}
