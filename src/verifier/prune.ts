/**
 * State pruning (the kernel's is_state_visited / states_equal): at prune
 * points the current state is compared with checkpoints whose exploration
 * finished safely; if one of them includes it, this path is safe too.
 * Checkpoints still on the current path catch infinite loops.
 *
 * Precision is approximated soundly: every live scalar is compared as if
 * precise (range and tnum inclusion), where the kernel ignores scalars no
 * safety decision depended on. So we may explore more than the kernel,
 * never accept more. Dead registers and stack slots of the innermost frame
 * (static liveness: ./cfg.ts, ./stack_liveness.ts) are ignored, as the
 * kernel ignores unread ones.
 */
import type { Env } from './env';
import type { Reg } from './reg';
import { formatFrame } from './log';
import { tnumIn } from './tnum';
import { slotLive, type StackLiveness } from './stack_liveness';
import {
  cloneState,
  STACK_INVALID,
  STACK_MISC,
  STACK_SPILL,
  STACK_ZERO,
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
    o.type === c.type && o.off === c.off && o.add32 === c.add32 && o.range === c.range && o.map === c.map && o.frameno === c.frameno &&
    o.varOff.value === c.varOff.value && o.varOff.mask === c.varOff.mask &&
    o.umin === c.umin && o.umax === c.umax && o.smin === c.smin && o.smax === c.smax &&
    o.u32min === c.u32min && o.u32max === c.u32max && o.s32min === c.s32min && o.s32max === c.s32max &&
    idmap.check(o.id, c.id) && idmap.check(o.refObjId, c.refObjId)
  );
}

function regsafe(o: Reg, c: Reg, idmap: IdMap, exact: boolean): boolean {
  if (o.type === 'not_init') return !exact || c.type === 'not_init';
  if (exact) return regsExact(o, c, idmap);
  if (o.type !== c.type) return false;
  switch (o.type) {
    case 'scalar':
      // A linked scalar's delta (off) is part of what the id promises.
      // (The id map makes old's links hold in cur; a cur scalar with no id gets a fresh one, so an
      // old id seen once constrains nothing, and twice fails the map.)
      if (o.id && c.id && (o.off !== c.off || o.add32 !== c.add32)) return false;
      return idmap.checkScalar(o.id, c.id) && rangeWithin(o, c) && tnumIn(o.varOff, c.varOff);
    case 'map_value':
      return o.off === c.off && o.map === c.map && rangeWithin(o, c) && tnumIn(o.varOff, c.varOff) && idmap.check(o.id, c.id);
    case 'pkt':
    case 'pkt_meta':
      if (o.range > c.range) return false;
      if (o.off !== c.off) return false;
      if (!idmap.check(o.id, c.id)) return false;
      return rangeWithin(o, c) && tnumIn(o.varOff, c.varOff);
    default:
      return regsExact(o, c, idmap);
  }
}

/** A spilled scalar, or all-misc bytes read as an unknown scalar. */
function scalarForStack(sl: StackSlot): Reg | null {
  if (sl.types[7] === STACK_SPILL && sl.types.every((t) => t === STACK_SPILL) && sl.spilled.type === 'scalar') return sl.spilled;
  return null;
}

/** `live` before instruction `at`: the slots a later instruction may read (dead ones are skipped, as the kernel skips unread ones); null: all. */
function stacksafe(o: Frame, c: Frame, idmap: IdMap, exact: boolean, live: StackLiveness | null, at: number): boolean {
  const oBytes = o.stack.length * 8;
  const cBytes = c.stack.length * 8;
  for (let i = 0; i < oBytes; i++) {
    const spi = Math.floor(i / 8);
    const b = i % 8;
    if (live !== null && !exact && !slotLive(live, at, spi)) {
      i += 7 - b;
      continue;
    }
    const os = o.stack[spi]!;
    const cs = c.stack[spi];
    if (exact && (i >= cBytes || os.types[b] !== cs!.types[b])) return false;
    if (os.types[b] === STACK_INVALID) continue;
    if (os.types[b] === STACK_MISC) continue;
    if (i >= cBytes || !cs) return false;
    const or = scalarForStack(os);
    const cr = scalarForStack(cs);
    if (or && cr) {
      if (!regsafe(or, cr, idmap, exact)) return false;
      i += 7 - b;
      continue;
    }
    if (os.types[b] === STACK_MISC && cs.types[b] === STACK_ZERO) continue;
    if (os.types[b] !== cs.types[b]) return false;
    if (b !== 7) continue;
    if (os.types[7] === STACK_SPILL && !regsafe(os.spilled, cs.spilled, idmap, exact)) return false;
  }
  return true;
}

function funcStatesEqual(o: Frame, c: Frame, live: number, liveSlots: StackLiveness | null, at: number, idmap: IdMap, exact: boolean): boolean {
  for (let i = 0; i < o.regs.length; i++) {
    if (!exact && i < 10 && !(live & (1 << i))) continue;
    if (!regsafe(o.regs[i]!, c.regs[i]!, idmap, exact)) return false;
  }
  return stacksafe(o, c, idmap, exact, liveSlots, at);
}

export function statesEqual(env: Env, o: VState, c: VState, insnIdx: number, exact: boolean): boolean {
  if (o.frames.length !== c.frames.length) return false;
  const idmap = new IdMap();
  for (let f = 0; f < o.frames.length; f++) {
    const of = o.frames[f]!;
    const cf = c.frames[f]!;
    if (of.callsite !== cf.callsite) return false;
    const top = f === o.frames.length - 1;
    const live = top ? env.liveRegs[insnIdx]! : 0x3ff;
    // Only the innermost frame's slots are known dead: a caller's may be read through a pointer its callee holds.
    if (!funcStatesEqual(of, cf, live, top ? env.liveStack : null, insnIdx, idmap, exact)) return false;
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
  const force = env.forceCheckpoint[idx] === 1;
  let addNew = force;
  if (env.jmpsProcessed - env.prevJmpsProcessed >= 2 && env.insnProcessed - env.prevInsnProcessed >= 8) addNew = true;
  let statesCnt = 0;
  for (let k = 0; k < list.length; k++) {
    const sl = list[k]!;
    const old = sl.state!;
    statesCnt++;
    let hit = false;
    const depthDiffers = (old.mayGotoDepth ?? 0) !== (cur.mayGotoDepth ?? 0);
    const runsDiffer = callbackRuns(old) !== callbackRuns(cur);
    if (sl.branches > 0 && isMayGoto(env.insns[idx]!) && depthDiffers && statesEqual(env, old, cur, idx, false)) {
      // A may_goto loop that came back no worse: the counter bounds it at run time.
      hit = true;
    } else if (sl.branches > 0 && runsDiffer && statesEqual(env, old, cur, idx, false)) {
      // A bpf_loop callback's next run that begins no worse than an earlier one: nr_loops bounds the
      // runs, and what follows was (or is being) explored from the earlier state (the kernel prunes
      // callback iterations the same way instead of calling them infinite loops).
      hit = true;
    } else if (sl.branches > 0) {
      if (statesMaybeLooping(old, cur) && !depthDiffers && statesEqual(env, old, cur, idx, true)) {
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
    } else if (statesEqual(env, old, cur, idx, false)) {
      hit = true;
    }
    if (hit) {
      sl.hit++;
      return true;
    }
    // Misses count only when a state is about to be added (the kernel's miss_cnt): otherwise a loop's
    // iterations would evict the states of its first ones, which later paths are pruned against.
    if (addNew) sl.miss++;
    const n = force && sl.branches > 0 ? 64 : 3;
    if (sl.miss > sl.hit * n + n) {
      list.splice(k, 1);
      k--;
      sl.removed = true;
      sl.state = null;
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
  const ck: Checkpoint = { state: cloneState(cur), insnIdx: idx, branches: 1, parent: cur.parent, hit: 0, miss: 0, removed: false };
  cur.parent = ck;
  list.unshift(ck);
  return false;
}

/** update_branch_counts: a path ended; completed checkpoints become usable. */
export function updateBranchCounts(s: VState): void {
  let p = s.parent;
  while (p) {
    p.branches--;
    if (p.branches > 0) break;
    p = p.parent;
  }
}
