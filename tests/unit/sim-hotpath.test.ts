/**
 * What the simulator's hot-path shortcuts must not change: the profile read
 * back from counted cost steps is the running sum to the last bit, and the
 * VM hook's map-lookup count (what the cost model charges) is the same with
 * the JIT's inlined array lookups as through the helper.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig, vmHook, XdpBuff, type VmHook } from '../../src/sim';
import { Machine } from '../../src/sim/machine';
import { COST_STEPS } from '../../src/sim/cost';
import { buildPacket } from '../../src/net/packet';
import { exampleSpec } from '../../src/engine/programs';
import { Rng } from '../../src/net/rng';
import { base, udpTraffic } from './sim-helpers';

describe('Machine.charge', () => {
  it('keeps the clock as a running sum and the profile as counts times cycles, fractional cycles and idle stretches included', () => {
    const m = new Machine(resolveConfig(base({ traffic: udpTraffic(1e6) })));
    const c = m.costs;
    const cpu = m.cpus[0]!;
    const counts = new Float64Array(COST_STEPS.length);
    const idle = new Float64Array(c.symbols.length);
    const running = new Float64Array(c.symbols.length);
    const rng = new Rng(7);
    let now = 0;
    for (let i = 0; i < 200_000; i++) {
      const step = rng.below(COST_STEPS.length);
      const times = rng.below(4) === 0 ? 1 + rng.below(40) : 1;
      // The ways the drivers charge: one step (once, or a count at once), two, or a program's run (a step, then two with counts).
      const add = (n: number): void => {
        counts[step]! += n;
        for (let k = c.start[step]!; k < c.start[step + 1]!; k++) running[c.partSym[k]!]! += c.partCycles[k]! * n;
        now += c.total[step]! * n;
      };
      if (i % 3 === 0) {
        if (times === 1) m.charge(cpu, step);
        else m.chargeTimes(cpu, step, times);
        add(times);
      } else if (i % 3 === 1) {
        m.charge2(cpu, step, step);
        add(1);
        add(1);
      } else {
        m.charge3(cpu, step, step, times, step, 0);
        add(1);
        add(times);
      }
      if (i % 1000 === 0) {
        // An idle stretch of any length lands on an idle symbol as it happens, between the steps.
        const from = cpu.now;
        const to = from + 1 + 3000 * rng.float();
        // Which idle state takes it is the governor's choice (tests/sim/idle_governor.test.ts); here, only that it adds whole.
        const polledBefore = cpu.sym[m.pollIdleSym]!;
        m.chargeIdle(cpu, from, to);
        idle[cpu.sym[m.pollIdleSym] !== polledBefore ? m.pollIdleSym : m.idleSym]! += to - from;
      }
    }
    // The clock: every charge added in order, as before.
    expect(cpu.now).toBe(now);
    // The profile: one product per step and symbol on top of the idle stretches, bit for bit.
    const ref = Float64Array.from(idle);
    for (let step = 0; step < COST_STEPS.length; step++) {
      if (counts[step] === 0) continue;
      for (let k = c.start[step]!; k < c.start[step + 1]!; k++) ref[c.partSym[k]!]! += c.partCycles[k]! * counts[step]!;
    }
    const sym = cpu.sym;
    expect(Array.from(sym)).toEqual(Array.from(ref));
    // The same figures a running sum of every charge gives, to the rounding of its own adds.
    for (let s = 0; s < sym.length; s++) expect(Math.abs(sym[s]! - idle[s]! - running[s]!)).toBeLessThanOrEqual(1e-9 * Math.max(1, running[s]!));
    // Some steps of this profile take fractional cycles (0.6 per eBPF instruction): the check covers both kinds.
    expect(Array.from(c.partCycles).some((v) => !Number.isInteger(v * 1024))).toBe(true);
  });

  it('keeps idle time apart from the counted steps', () => {
    const m = new Machine(resolveConfig(base({ traffic: udpTraffic(1e6) })));
    const cpu = m.cpus[0]!;
    let idle = 0;
    for (let i = 1; i <= 100; i++) {
      m.chargeIdle(cpu, 0, i * 1.1);
      idle += i * 1.1;
    }
    const sym = cpu.sym;
    expect(sym[m.idleSym]! + sym[m.pollIdleSym]!).toBe(idle);
  });
});

describe('the VM hook counts map lookups', () => {
  const load = (id: string): VmHook => {
    const h = vmHook(exampleSpec(id), { name: id });
    if ('error' in h) throw new Error(h.error);
    return h;
  };
  const run = (h: VmHook, frame: Uint8Array): XdpBuff => {
    const x = new XdpBuff();
    x.mem = new Uint8Array(8192);
    x.hardStart = 4096;
    x.frameSz = 4096;
    x.data = x.dataMeta = 4096 + 256;
    x.dataEnd = x.data + frame.length;
    x.mem.set(frame, x.data);
    h.run(x);
    return x;
  };

  it('xdp1: one lookup per packet through the JIT inline path, counted afresh each run', () => {
    const h = load('xdp1');
    expect(h.vm.jitUnavailable).toBeUndefined();
    expect(h.maps.every((m) => !m.observed)).toBe(true);
    const udp = buildPacket({ l4: 'udp' });
    for (let i = 0; i < 3; i++) expect(run(h, udp).mapLookups).toBe(1);
    // The counter reached the map: the packets were counted in rxcnt[17].
    const key = new Uint8Array([17, 0, 0, 0]);
    const v = h.maps[0]!.userLookup(key)!;
    expect(new DataView(v[0]!.buffer, v[0]!.byteOffset).getBigInt64(0, true)).toBe(3n);
  });

  it('without counting, the hook reports none', () => {
    const spec = exampleSpec('xdp1');
    const h = vmHook(spec, { countMapLookups: false });
    if ('error' in h) throw new Error(h.error);
    expect(run(h, buildPacket({ l4: 'udp' })).mapLookups).toBe(0);
  });
});
