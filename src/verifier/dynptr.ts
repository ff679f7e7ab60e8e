/**
 * Dynptrs on the stack (the kernel's STACK_DYNPTR): a struct bpf_dynptr is
 * 16 bytes, two 8-byte slots at a constant, 8-byte aligned offset of the
 * frame. A kfunc's `ptr__uninit` argument (bpf_dynptr_from_xdp) writes it
 * and marks both slots; a `const struct bpf_dynptr *` argument (the slice
 * kfuncs, bpf_dynptr_read/write/data) must find both marked, first slot
 * first. A store over either slot destroys the dynptr (XDP dynptrs hold no
 * reference, so that is allowed); its bytes never read as data. The only
 * kind made here is the XDP one (DYNPTR_TYPE_XDP): it covers the packet.
 *
 * process_dynptr_func, stack_slot_obj_get_spi, is_dynptr_reg_valid_uninit /
 * _init, mark_stack_slots_dynptr and destroy_if_dynptr_stack_slot in
 * kernel/bpf/verifier.c, with their messages.
 */
import type { Env } from './env';
import { checkMemAccess, stackFrameOf } from './mem';
import { markRegInvalid, notInit, type Reg } from './reg';
import { forEachReg, newSlot, STACK_DYNPTR, STACK_INVALID, type DynptrSlot, type Frame } from './state';
import { s64, tnumIsConst } from './tnum';

export const BPF_DYNPTR_SIZE = 16;
const BPF_DYNPTR_NR_SLOTS = 2;
const ERANGE = -34;

/** stack_slot_obj_get_spi for a dynptr: the spi of its first slot, ERANGE past the allocated stack, or a refusal already logged (-1). */
function dynptrGetSpi(env: Env, reg: Reg, lines: string[]): number {
  if (!tnumIsConst(reg.varOff)) {
    lines.push('dynptr has to be at a constant offset');
    return -1;
  }
  const off = reg.off + Number(s64(reg.varOff.value));
  const spi = Math.floor((-off - 1) / 8);
  if (off % 8 !== 0 || spi + 1 < BPF_DYNPTR_NR_SLOTS) {
    lines.push(`cannot pass in dynptr at an offset=${off}`);
    return -1;
  }
  const f = stackFrameOf(env, reg);
  if (spi - BPF_DYNPTR_NR_SLOTS + 1 < 0 || spi >= f.stack.length) return ERANGE;
  return spi;
}

/**
 * destroy_if_dynptr_stack_slot: a write into either slot of a dynptr ends it, both slots becoming invalid.
 * Only the results of bpf_dynptr_data (PTR_TO_MEM, maybe NULL, no dynptr type flag) are invalidated with it:
 * the kernel compares the whole type, so a packet slice (PTR_TO_MEM | DYNPTR_TYPE_XDP) stays.
 */
export function destroyIfDynptrStackSlot(env: Env, f: Frame, spi: number): void {
  const sl = f.stack[spi];
  if (!sl || sl.types[0] !== STACK_DYNPTR) return;
  const first = sl.dynptr?.first ? spi : spi + 1;
  const id = f.stack[first]?.dynptr?.id ?? 0;
  for (const s of [first, first - 1]) {
    env.markStackScratched(s);
    // In place: the caller (a store) may hold the slot.
    const x = f.stack[s]!;
    x.types.fill(STACK_INVALID);
    x.spilled = notInit();
    delete x.dynptr;
  }
  forEachReg(env.cur, (r) => {
    if ((r.type === 'mem' || r.type === 'mem_or_null') && !r.dynptrPkt && r.dynptrId === id) markRegInvalid(r, env.allowPtrLeaks);
  });
  env.live.markWrite(f.frameno, first);
  env.live.markWrite(f.frameno, first - 1);
}

/** The dynptr a stack slot holds, when spi is its first slot and both slots are whole (is_dynptr_reg_valid_init). */
function initDynptrAt(f: Frame, spi: number): DynptrSlot | null {
  const a = f.stack[spi];
  const b = f.stack[spi - 1];
  if (!a?.dynptr?.first || !b) return null;
  if (!a.types.every((t) => t === STACK_DYNPTR) || !b.types.every((t) => t === STACK_DYNPTR)) return null;
  return a.dynptr;
}

/**
 * process_dynptr_func for an argument in register regno (its arg # is regno - 1): `uninit` writes a new XDP
 * dynptr there (MEM_UNINIT), otherwise it must be an initialised one, read. Returns the dynptr's id.
 */
export function processDynptrFunc(env: Env, regno: number, uninit: boolean): number {
  const reg = env.regs[regno]!;
  if (reg.type !== 'fp') env.reject(`arg#${regno - 1} expected pointer to stack or const struct bpf_dynptr`);
  const lines: string[] = [];
  const spi = dynptrGetSpi(env, reg, lines);
  const f = stackFrameOf(env, reg);
  if (uninit) {
    if (spi === -1) env.reject(...lines, 'Dynptr has to be an uninitialized dynptr');
    // The kfunc writes the 16 bytes: two BPF_DW stores as a program's would be checked (bounds, slots it destroys).
    for (let i = 0; i < BPF_DYNPTR_SIZE; i += 8) checkMemAccess(env, { regno, off: i, size: 8, t: 'write', valueRegno: -1 });
    const at = dynptrGetSpi(env, reg, lines);
    // mark_stack_slots_dynptr: the two slots may have held halves of two other dynptrs.
    destroyIfDynptrStackSlot(env, f, at);
    destroyIfDynptrStackSlot(env, f, at - 1);
    const id = ++env.idGen;
    for (const [s, first] of [[at, true], [at - 1, false]] as const) {
      const sl = newSlot();
      sl.types.fill(STACK_DYNPTR);
      sl.dynptr = { type: 'xdp', first, id };
      f.stack[s] = sl;
      env.markStackScratched(s);
    }
    return id;
  }
  const d = spi >= 0 ? initDynptrAt(f, spi) : null;
  if (!d) env.reject(...lines, `Expected an initialized dynptr as arg #${regno - 1}`);
  // mark_dynptr_read: both slots are used here, so pruning must compare them.
  env.live.markRead(env.cur, f.frameno, env.insnIdx, spi);
  env.live.markRead(env.cur, f.frameno, env.insnIdx, spi - 1);
  return d.id;
}

/** clear_all_pkt_pointers' reg_is_dynptr_slice_pkt: a slice of a packet dynptr. */
export const isDynptrSlicePkt = (r: Reg): boolean => r.dynptrPkt && (r.type === 'mem' || r.type === 'rdonly_mem' || r.type === 'mem_or_null' || r.type === 'rdonly_mem_or_null');
