/**
 * Packet memory as a helper's argument, against the kernel: every helper
 * XDP may call whose arguments this test can build, called with a
 * bounds-checked packet pointer as its first memory argument (the other
 * arguments valid: the ctx, a map of a type it takes, an initialised stack
 * buffer, a size of 8, zeros). The kernel refuses it for a helper whose
 * prototype lacks pkt_access ("helper access to the packet is not
 * allowed", check_func_arg's may_access_direct_pkt_data) and lets the
 * others through; our verifier must say the same for each (NO_PKT_ACCESS,
 * src/helpers/table.ts). Skipped, loudly, where bpf-oracle --probe fails.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { HELPERS, NO_PKT_ACCESS } from '../../src/helpers/table';
import { assemble } from '../../src/isa/asm';
import { encodeProgram } from '../../src/isa/insn';
import { parseSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';
import { Oracle, oracleAvailable, type OracleSpec } from './oracle';

const avail = oracleAvailable();
if (!avail.ok) console.warn(`*** verifier-helper-pkt-access: THE KERNEL ORACLE IS NOT AVAILABLE (${avail.why}): skipped ***`);

const MEM = new Set(['ARG_PTR_TO_MEM', 'ARG_PTR_TO_MEM_OR_NULL', 'ARG_PTR_TO_UNINIT_MEM', 'ARG_PTR_TO_MAP_KEY', 'ARG_PTR_TO_MAP_VALUE', 'ARG_PTR_TO_FIXED_SIZE_MEM', 'ARG_PTR_TO_LONG', 'ARG_PTR_TO_STACK_OR_NULL']);
const SIZE = new Set(['ARG_CONST_SIZE', 'ARG_CONST_SIZE_OR_ZERO']);
/** Map types the oracle can create, with a shape every helper taking them accepts. */
const MAPS: Record<string, object> = {
  hash: { type: 'hash', key_size: 4, value_size: 8, max_entries: 4 },
  array: { type: 'array', key_size: 4, value_size: 8, max_entries: 4 },
  ringbuf: { type: 'ringbuf', key_size: 0, value_size: 0, max_entries: 4096 },
  perf_event_array: { type: 'perf_event_array', key_size: 4, value_size: 4, max_entries: 2 },
};

/** The probe program for one helper, or undefined when an argument is of a kind built here from nothing. */
function probe(h: (typeof HELPERS)[number]): { spec: OracleSpec; arg: number } | undefined {
  const first = h.args.findIndex((a) => MEM.has(a));
  if (first < 0 || h.refusal || h.unmodelled) return undefined;
  const lines = ['r6 = r1', 'r7 = *(u32 *)(r6 + 0)', 'r8 = *(u32 *)(r6 + 4)', 'r9 = r7', 'r9 += 64', 'if r9 > r8 goto out'];
  for (let k = 1; k <= 8; k++) lines.push(`*(u64 *)(r10 - ${k * 8}) = 0`);
  const maps: object[] = [];
  const mapLines: number[] = [];
  for (const [i, a] of h.args.entries()) {
    const r = `r${i + 1}`;
    if (a === 'ARG_PTR_TO_CTX') lines.push(`${r} = r6`);
    else if (a === 'ARG_CONST_MAP_PTR') {
      const m = MAPS[h.mapTypes?.[0] ?? 'hash'];
      if (!m) return undefined;
      maps.push(m);
      mapLines.push(lines.length);
      lines.push(`${r} = 0x0 ll`);
    } else if (MEM.has(a)) lines.push(...(i === first ? [`${r} = r7`] : [`${r} = r10`, `${r} += -64`]));
    else if (SIZE.has(a)) lines.push(`${r} = 8`);
    else if (a === 'ARG_ANYTHING' || a === 'ARG_DONTCARE') lines.push(`${r} = 0`);
    else return undefined;
  }
  lines.push(`call bpf_${h.name}`, 'out:', 'r0 = 2', 'exit');
  const asm = assemble(lines.join('\n'));
  if (asm.errors.length) throw new Error(`${h.name}: ${asm.errors[0]!.message}`);
  // The slot of each lddw that loads a map.
  const relocs: { insn: number; map: number }[] = [];
  let slot = 0;
  lines.forEach((l, li) => {
    if (l.endsWith(':')) return;
    if (mapLines.includes(li)) relocs.push({ insn: slot, map: relocs.length });
    slot += l.endsWith(' ll') ? 2 : 1;
  });
  const spec = { prog_type: 'xdp', insns: Buffer.from(encodeProgram(asm.insns)).toString('hex'), maps, map_relocs: relocs, log_level: 1 } as OracleSpec;
  return { spec, arg: first + 1 };
}

const DENIED = 'helper access to the packet is not allowed';

describe.skipIf(!avail.ok)('packet memory as a helper argument: our verifier vs the kernel', () => {
  const oracle = avail.ok ? new Oracle() : undefined;
  afterAll(() => oracle?.close());
  it('refused for exactly the helpers the kernel refuses it for', async () => {
    let probed = 0;
    const denied: string[] = [];
    for (const h of HELPERS) {
      const p = probe(h);
      if (!p) continue;
      probed++;
      const k = await oracle!.ask(p.spec);
      const kernelDenied = !k.accepted && k.verifier_log.includes(DENIED);
      const parsed = parseSpec(p.spec);
      if ('error' in parsed) throw new Error(parsed.error);
      const ours = verify(parsed, { logLevel: 0, states: false });
      const oursDenied = !ours.accepted && ours.error === DENIED;
      expect(oursDenied, `bpf_${h.name} with packet memory as argument ${p.arg}: kernel ${kernelDenied ? 'refuses' : 'takes'} it`).toBe(kernelDenied);
      if (kernelDenied) denied.push(h.name);
    }
    // The set is the measured one, no more: each helper listed was probed and refused.
    expect(probed).toBeGreaterThanOrEqual(25);
    expect([...NO_PKT_ACCESS].sort()).toEqual(denied.sort());
  }, 120_000);
});
