/** The same scenario and seed give the same event stream, bit for bit (the trace hash covers every event field). */
import { describe, expect, it } from 'vitest';
import { findScenario, runScenario } from '../../src/sim';
import { examplePrograms } from '../../src/engine/programs';

describe('determinism of the named scenarios', () => {
  it.each(['seed000-xdp2-tx', 'seed000-xdp1-drop-nocache', 'seed004-64-redirect-native', 'seed004-512-tx-skb', 'seed002-i40e-veth-native-devprog', 'seed001-l2fwd-zc-unaligned'])('%s', (name) => {
    const s = findScenario(name)!;
    const a = runScenario(s, { programs: examplePrograms, packets: 30_000 });
    const b = runScenario(s, { programs: examplePrograms, packets: 30_000 });
    const c = runScenario(s, { programs: examplePrograms, packets: 30_000, seed: 2 });
    console.log(`${name}: trace hash ${a.trace_hash.toString(16)} (seed 1, twice), ${c.trace_hash.toString(16)} (seed 2)`);
    expect(b.trace_hash).toBe(a.trace_hash);
    expect(b.counters).toEqual(a.counters);
    expect(b.profile).toEqual(a.profile);
    expect(c.trace_hash).not.toBe(a.trace_hash);
  });
});
