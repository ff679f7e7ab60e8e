/**
 * State pruning (the kernel's is_state_visited / states_equal): at prune
 * points the current state is compared with checkpoints whose exploration
 * finished safely; if one of them includes it, this path is safe too.
 * Checkpoints still on the current path catch infinite loops.
 *
 * What is compared:
 *  - scalars only where a checkpoint's path relied on their value (precise,
 *    marked by ./precision.ts); a pruned path hands the marks of the state it
 *    matched back to its own checkpoints. Programs whose loops converge by
 *    state equality (may_goto, callbacks) compare every scalar instead;
 *  - registers live after the instruction (static liveness, ./cfg.ts);
 *  - stack slots a later read may see: a completed checkpoint is cleaned
 *    once with the reads its explored paths made (./live_stack.ts), and the
 *    static bound (./stack_liveness.ts) covers the rest.
 */
import type { Env } from './env';
import type { Reg } from './reg';
import { formatFrame } from './log';
import { tnumIn } from './tnum';
import { markAllScalarsImprecise, propagatePrecision, pushJmpHistory } from './precision';
import { notInit, unknownScalar } from './reg';
import { slotLive, type StackLiveness } from './stack_liveness';
import {
  cloneState,
  STACK_INVALID,
  STACK_MISC,
  STACK_SPILL,
  STACK_ZERO,
  STACK_DYNPTR,
  type Checkpoint,
  type Frame,
  type StackSlot,
  type VState,
} from './state';

class IdMap {
  private pairs: [number, number][] = [];
  private tmp = 0x40000000;
  check(oldId: number, curId: number): boolean {
    if (!oldId !== !curId) return false;
    if (!oldId) return true;
    for (const [o, c] of this.pairs) {
      if (o === oldId) return c === curId;
      if (c === curId) return false;
    }
    this.pairs.push([oldId, curId]);
    return true;
  }
  checkScalar(oldId: number, curId: number): boolean {
    return this.check(oldId || ++this.tmp, curId || ++this.tmp);
  }
}

const rangeWithin = (o: Reg, c: Reg): boolean =>
  o.umin <= c.umin && o.umax >= c.umax && o.smin <= c.smin && o.smax >= c.smax &&
  o.u32min <= c.u32min && o.u32max >= c.u32max && o.s32min <= c.s32min && o.s32max >= c.s32max;

function regsExact(o: Reg, c: Reg, idmap: IdMap): boolean {
  return (
    o.type === c.type && o.off === c.off && o.add32 === c.add32 && o.addConst === c.addConst && o.range === c.range && o.map === c.map && o.frameno === c.frameno && o.dynptrId === c.dynptrId && o.dynptrPkt === c.dynptrPkt &&
    o.varOff.value === c.varOff.value && o.varOff.mask === c.varOff.mask &&
    o.umin === c.umin && o.umax === c.umax && o.smin === c.smin && o.smax === c.smax &&
    o.u32min === c.u32min && o.u32max === c.u32max && o.s32min === c.s32min && o.s32max === c.s32max &&
    idmap.check(o.id, c.id) && idmap.check(o.refObjId, c.refObjId)
  );
}

/**
 * How states are compared (the kernel's exact_level): NOT_EXACT ignores the value of a scalar the
 * old state did not need precise; RANGE_WITHIN compares every scalar's range (loops that converge
 * by state equality, and every program when precision is not tracked); EXACT is the infinite-loop check.
 */
export const enum Exact {
  NOT_EXACT,
  EXACT,
  RANGE_WITHIN,
}

function regsafe(o: Reg, c: Reg, idmap: IdMap, exact: Exact): boolean {
  if (o.type === 'not_init') return exact !== Exact.EXACT || c.type === 'not_init';
  if (exact === Exact.EXACT) return regsExact(o, c, idmap);
  if (o.type !== c.type) return false;
  switch (o.type) {
    case 'scalar':
      if (!o.precise && exact === Exact.NOT_EXACT) return true;
      // A linked scalar's delta (off) is part of what the id promises.
      // (The id map makes old's links hold in cur; a cur scalar with no id gets a fresh one, so an
      // old id seen once constrains nothing, and twice fails the map.)
      // A link with a delta (BPF_ADD_CONST) matches only one with the same delta; the flag is part of the id.
      if (o.id && o.addConst !== (c.id !== 0 && c.addConst)) return false;
      if (o.id && o.addConst && (o.off !== c.off || o.add32 !== c.add32)) return false;
      return idmap.checkScalar(o.id && o.id * 2 + (o.addConst ? 1 : 0), c.id && c.id * 2 + (c.addConst ? 1 : 0)) && rangeWithin(o, c) && tnumIn(o.varOff, c.varOff);
    case 'map_value':
      return o.off === c.off && o.map === c.map && rangeWithin(o, c) && tnumIn(o.varOff, c.varOff) && idmap.check(o.id, c.id);
    case 'mem':
    case 'rdonly_mem':
      // PTR_TO_MEM: the fields before var_off (mem_size, dynptr_id) alike, the offset within, the ids mapped.
      return o.off === c.off && o.range === c.range && o.dynptrId === c.dynptrId && o.dynptrPkt === c.dynptrPkt && rangeWithin(o, c) && tnumIn(o.varOff, c.varOff) && idmap.check(o.id, c.id);
    case 'pkt':
    case 'pkt_meta':
      // The markers AT_PKT_END (-1) and BEYOND_PKT_END (-2) are facts about the end, not byte counts:
      // a marker matches only itself (old at the end of the packet says nothing of cur with 60 bytes
      // checked, and decided a later `pkt < pkt_end` the other way); checked bytes match fewer or equal.
      if (o.range < 0 || c.range < 0) {
        if (o.range !== c.range) return false;
      } else if (o.range > c.range) return false;
      if (o.off !== c.off) return false;
      if (!idmap.check(o.id, c.id)) return false;
      return rangeWithin(o, c) && tnumIn(o.varOff, c.varOff);
    default:
      return regsExact(o, c, idmap);
  }
}

/** An unknown scalar that needs no precision: what all-misc bytes read as. */
const UNBOUND = unknownScalar();

/** scalar_reg_for_stack: a spilled 8-byte scalar, or bytes all misc (or uninitialised, readable when privileged) read as an unknown scalar. */
function scalarForStack(sl: StackSlot, allowUninit: boolean): Reg | null {
  if (sl.types[7] === STACK_SPILL && sl.types.every((t) => t === STACK_SPILL) && sl.spilled.type === 'scalar') return sl.spilled;
  if (sl.types.every((t) => t === STACK_MISC || (allowUninit && t === STACK_INVALID))) return UNBOUND;
  return null;
}

/** `live` before instruction `at`: the slots a later instruction may read (dead ones are skipped, as the kernel skips unread ones); null: all. */
function stacksafe(o: Frame, c: Frame, idmap: IdMap, exact: Exact, live: StackLiveness | null, at: number, allowUninit: boolean): boolean {
  const oBytes = o.stack.length * 8;
  const cBytes = c.stack.length * 8;
  for (let i = 0; i < oBytes; i++) {
    const spi = Math.floor(i / 8);
    const b = i % 8;
    if (live !== null && exact !== Exact.EXACT && !slotLive(live, at, spi)) {
      i += 7 - b;
      continue;
    }
    const os = o.stack[spi]!;
    const cs = c.stack[spi];
    if (exact === Exact.EXACT && (i >= cBytes || os.types[b] !== cs!.types[b])) return false;
    if (os.types[b] === STACK_INVALID) continue;
    if (allowUninit && os.types[b] === STACK_MISC) continue;
    if (i >= cBytes || !cs) return false;
    const or = b === 0 ? scalarForStack(os, allowUninit) : null;
    const cr = or ? scalarForStack(cs, allowUninit) : null;
    if (or && cr) {
      if (!regsafe(or, cr, idmap, exact)) return false;
      i += 7 - b;
      continue;
    }
    if (os.types[b] === STACK_MISC && cs.types[b] === STACK_ZERO) continue;
    if (os.types[b] !== cs.types[b]) return false;
    if (b !== 7) continue;
    if (os.types[7] === STACK_SPILL && !regsafe(os.spilled, cs.spilled, idmap, exact)) return false;
    // STACK_DYNPTR: the same kind of dynptr, cut the same way (first_slot); XDP dynptrs hold no reference to map.
    if (os.types[7] === STACK_DYNPTR && (os.dynptr?.type !== cs.dynptr?.type || os.dynptr?.first !== cs.dynptr?.first)) return false;
  }
  return true;
}

function funcStatesEqual(o: Frame, c: Frame, live: number, liveSlots: StackLiveness | null, at: number, idmap: IdMap, exact: Exact, allowUninit: boolean): boolean {
  for (let i = 0; i < o.regs.length; i++) {
    if (exact !== Exact.EXACT && i < 10 && !(live & (1 << i))) continue;
    if (!regsafe(o.regs[i]!, c.regs[i]!, idmap, exact)) return false;
  }
  return stacksafe(o, c, idmap, exact, liveSlots, at, allowUninit);
}

export function statesEqual(env: Env, o: VState, c: VState, insnIdx: number, exact: Exact): boolean {
  if (o.frames.length !== c.frames.length) return false;
  const idmap = new IdMap();
  for (let f = 0; f < o.frames.length; f++) {
    const of = o.frames[f]!;
    const cf = c.frames[f]!;
    if (of.callsite !== cf.callsite) return false;
    const top = f === o.frames.length - 1;
    // A caller's registers matter as far as they are live at its call (clean_func_state at frame_insn_idx).
    const live = top ? env.liveRegs[insnIdx]! : env.liveRegs[o.frames[f + 1]!.callsite]!;
    // Only the innermost frame's slots are known dead: a caller's may be read through a pointer its callee holds.
    if (!funcStatesEqual(of, cf, live, top ? env.liveStack : null, insnIdx, idmap, exact, env.allowPtrLeaks)) return false;
  }
  // refsafe: the same references held, under the same id map.
  const or = o.refs ?? [];
  const cr = c.refs ?? [];
  if (or.length !== cr.length) return false;
  for (let i = 0; i < or.length; i++) if (!idmap.check(or[i]!.id, cr[i]!.id)) return false;
  return true;
}

function statesMaybeLooping(o: VState, c: VState): boolean {
  if (o.frames.length !== c.frames.length) return false;
  const of = o.frames[o.frames.length - 1]!;
  const cf = c.frames[c.frames.length - 1]!;
  const idmap = new IdMap();
  for (let i = 0; i < of.regs.length; i++) {
    const a = of.regs[i]!;
    const b = cf.regs[i]!;
    if (a.type !== b.type || a.id !== b.id) return false;
    if (!regsExact(a, b, idmap)) return false;
  }
  return true;
}

/** is_state_visited: true when the current path can be pruned here. */
/** BPF_JMP | BPF_JCOND with src_reg BPF_MAY_GOTO. */
export const isMayGoto = (insn: { code: number; src: number }): boolean => insn.code === 0xe5 && insn.src === 0;

/** The bpf_loop callback runs a state is in (0 outside callbacks), to tell a callback's next run from a loop. */
const callbackRuns = (s: VState): number => s.frames.reduce((n, f) => n + (f.callback?.run ?? 0), 0);

export function isStateVisited(env: Env, idx: number): boolean {
  let list = env.explored.get(idx);
  if (!list) {
    list = [];
    env.explored.set(idx, list);
  }
  const cur = env.cur;
  const forceCheckpoint = env.forceCheckpoint[idx] === 1;
  // A long jump history also forces a checkpoint (precision backtracking walks it).
  const force = forceCheckpoint || cur.hist.length > 40;
  let addNew = force;
  // Without precision tracking every scalar compares as precise.
  const notExact = env.precisionTracking ? Exact.NOT_EXACT : Exact.RANGE_WITHIN;
  if (env.jmpsProcessed - env.prevJmpsProcessed >= 2 && env.insnProcessed - env.prevInsnProcessed >= 8) addNew = true;
  if (env.precisionTracking) cleanLiveStates(env, list, cur);
  let statesCnt = 0;
  for (let k = 0; k < list.length; k++) {
    const sl = list[k]!;
    const old = sl.state!;
    statesCnt++;
    let hit = false;
    const depthDiffers = (old.mayGotoDepth ?? 0) !== (cur.mayGotoDepth ?? 0);
    const runsDiffer = callbackRuns(old) !== callbackRuns(cur);
    if (sl.branches > 0 && isMayGoto(env.insns[idx]!) && depthDiffers && statesEqual(env, old, cur, idx, Exact.RANGE_WITHIN)) {
      // A may_goto loop that came back no worse: the counter bounds it at run time.
      hit = true;
    } else if (sl.branches > 0 && runsDiffer && statesEqual(env, old, cur, idx, Exact.RANGE_WITHIN)) {
      // A bpf_loop callback's next run that begins no worse than an earlier one: nr_loops bounds the
      // runs, and what follows was (or is being) explored from the earlier state (the kernel prunes
      // callback iterations the same way instead of calling them infinite loops).
      hit = true;
    } else if (sl.branches > 0) {
      if (statesMaybeLooping(old, cur) && !depthDiffers && statesEqual(env, old, cur, idx, Exact.EXACT)) {
        env.verboseLinfo(idx, '; ');
        env.reject(
          `infinite loop detected at insn ${idx}`,
          `cur state:${formatFrame(cur.frames[cur.frames.length - 1]!, env.maps, null, null)}`,
          `old state:${formatFrame(old.frames[old.frames.length - 1]!, env.maps, null, null)}`,
        );
      }
      if (!force && env.jmpsProcessed - env.prevJmpsProcessed < 20 && env.insnProcessed - env.prevInsnProcessed < 100) {
        addNew = false;
      }
    } else if (statesEqual(env, old, cur, idx, notExact)) {
      hit = true;
    }
    if (hit) {
      sl.hit++;
      // What the matched state needed precise, this path's checkpoints need too.
      if (env.jmpPoint[idx]) pushJmpHistory(env, cur, 0, 0, 0, null);
      propagatePrecision(env, old, cur);
      return true;
    }
    // Misses count only when a state is about to be added (the kernel's miss_cnt): otherwise a loop's
    // iterations would evict the states of its first ones, which later paths are pruned against.
    if (addNew) sl.miss++;
    const n = forceCheckpoint && sl.branches > 0 ? 64 : 3;
    if (sl.miss > sl.hit * n + n) {
      list.splice(k, 1);
      k--;
      sl.removed = true;
      // Paths still explored below it may backtrack into it; updateBranchCounts drops it after.
      if (sl.branches === 0) sl.state = null;
      env.curStates--;
    }
  }
  if (env.maxStatesPerInsn < statesCnt) env.maxStatesPerInsn = statesCnt;
  if (!addNew) return false;
  env.totalStates++;
  env.curStates++;
  if (env.curStates > env.peakStates) env.peakStates = env.curStates;
  env.prevJmpsProcessed = env.jmpsProcessed;
  env.prevInsnProcessed = env.insnProcessed;
  // A checkpoint starts with no precision marks: its children mark what they rely on.
  markAllScalarsImprecise(cur);
  const ck: Checkpoint = { state: cloneState(cur), insnIdx: idx, branches: 1, parent: cur.parent, hit: 0, miss: 0, removed: false, cleaned: false };
  cur.parent = ck;
  cur.firstInsnIdx = idx;
  cur.hist = [];
  list.unshift(ck);
  return false;
}

/** Same frames, called from the same places (same_callsites). */
function sameCallsites(a: VState, b: VState): boolean {
  if (a.frames.length !== b.frames.length) return false;
  for (let i = 0; i < a.frames.length; i++) if (a.frames[i]!.callsite !== b.frames[i]!.callsite) return false;
  return true;
}

/**
 * clean_live_states: a completed checkpoint, the first time it is looked at, forgets the stack
 * slots no explored path read after it (./live_stack.ts): they become invalid and match anything.
 */
function cleanLiveStates(env: Env, list: Checkpoint[], cur: VState): void {
  for (const sl of list) {
    if (sl.branches || sl.cleaned || !sl.state || !sameCallsites(sl.state, cur)) continue;
    sl.cleaned = true;
    const st = sl.state;
    for (let fr = 0; fr < st.frames.length; fr++) {
      const f = st.frames[fr]!;
      for (let spi = 0; spi < f.stack.length; spi++) {
        if (env.live.slotAlive(st, fr, spi)) continue;
        const slot = f.stack[spi]!;
        slot.types.fill(STACK_INVALID);
        slot.spilled = notInit();
        delete slot.dynptr;
      }
    }
  }
}

/** update_branch_counts: a path ended; completed checkpoints become usable. */
export function updateBranchCounts(s: VState): void {
  let p = s.parent;
  while (p) {
    p.branches--;
    if (p.branches > 0) break;
    if (p.removed) p.state = null;
    p = p.parent;
  }
}
