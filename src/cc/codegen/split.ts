/**
 * Which struct locals are split into one stack slot per member (the part
 * of clang's SROA that the kernel verifier notices).
 *
 * Why: the verifier tracks a constant stored on the stack only in a slot
 * of its own. It keeps a spilled scalar at an 8-byte aligned offset, but a
 * store to another byte of the same 8 bytes turns the slot into unknown
 * data. A parse-result struct such as
 *   struct parse_pkt { __u16 l3_proto, l3_offset, vlan_outer, vlan_inner;
 *                      __u8 vlan_outer_offset, vlan_inner_offset; };
 * filled by an inlined parser through `pkt->vlan_outer_offset = offset`
 * then loses the offset the moment `vlan_inner_offset` is written, and
 * `data + pkt.vlan_outer_offset` is an unbounded packet pointer. clang's
 * SROA puts such a struct's members in registers (their own slots when
 * they spill), so the kernel accepts clang's build of the same source
 * (tools/testing/selftests/bpf/progs/test_xdp_vlan.c, xdp_vlan_change).
 *
 * A struct local is split when its members are all scalars (integers and
 * pointers, no bitfields, not a union), at least two of them share an
 * 8-byte word (else there is nothing to gain), and the struct is only ever
 * used member by member: `s.f` (read, written, incremented; never `&s.f`),
 * its declaration's initialiser member by member, or `&s` passed straight
 * to an inlined function whose parameter is in turn only used as `p->f` or
 * passed on the same way. Anything else (`&s` kept in a variable or given
 * to a helper, a copy of the whole struct, memcpy/memset, pointer
 * arithmetic) keeps the struct in one piece, as clang's SROA does when the
 * address escapes. Pure: reads the typed tree, changes nothing.
 */
import type { Expr, Init, Stmt, Sym } from '../ast';
import { isInt, isPtr, sizeOf, type Member, type StructType, type Type } from '../types';
import { walkExprs, walkStmts, writes } from './tree';

/** A struct split into more members than this stays whole (each member costs an 8-byte slot). */
const MAX_SPLIT_MEMBERS = 8;
/** Nor is one larger than this split. */
const MAX_SPLIT_BYTES = 64;
/** How deep `&s` may be handed from one inlined function to the next. */
const MAX_DEPTH = 8;

export interface SplitCtx {
  inlineable(fn: Sym): boolean;
  calleeSym(e: Expr & { k: 'call' }): Sym | undefined;
}

/** The members of a struct type that could be split, or undefined. */
function splitMembers(t: Type): Member[] | undefined {
  if (t.k !== 'struct') return undefined;
  const st = t as StructType;
  if (st.union || !st.complete || st.packed || st.size > MAX_SPLIT_BYTES || st.members.length < 2 || st.members.length > MAX_SPLIT_MEMBERS) return undefined;
  for (const m of st.members) {
    if (m.bitWidth !== undefined || !(isInt(m.type) || isPtr(m.type))) return undefined;
    if (m.offset % sizeOf(m.type) !== 0) return undefined;
  }
  // Worth it only where two members share an 8-byte word.
  const words = new Set(st.members.map((m) => Math.floor(m.offset / 8)));
  if (words.size === st.members.length) return undefined;
  return st.members;
}

/** `&s` (possibly cast to a pointer to the same struct): the struct local it names. */
function addrOfVar(e: Expr): Sym | undefined {
  if (e.k === 'cast' && isPtr(e.ty) && isPtr(e.e.ty) && e.ty.to === e.e.ty.to) return addrOfVar(e.e);
  return e.k === 'addr' && e.e.k === 'var' ? e.e.sym : undefined;
}

/** An initialiser that sets whole members only (or nothing but zero). */
function memberwiseInit(init: Init | undefined, members: Member[]): boolean {
  if (!init) return true;
  return init.parts.every((p) => !p.bit && members.some((m) => m.offset === p.offset && sizeOf(m.type) === sizeOf(p.type)));
}

/**
 * Every use of `sym` in `body` is a member access, or `&sym` handed to an
 * inlined function that only uses it member by member. `viaPointer`: sym
 * is a pointer parameter (uses are `p->f`), else a struct local (`s.f`).
 */
function usedMemberwise(cx: SplitCtx, body: Stmt, sym: Sym, struct: Type, viaPointer: boolean, depth: number, seen: Set<Sym>): boolean {
  let total = 0;
  let good = 0;
  let bad = false;
  walkExprs(body, (e) => {
    if (bad) return;
    if (e.k === 'var' && e.sym === sym) total++;
    else if (e.k === 'addr' && e.e.k === 'member' && isBase(e.e.e, sym, viaPointer)) bad = true;
    else if (e.k === 'member' && isBase(e.e, sym, viaPointer)) good++;
    else if (e.k === 'call') {
      e.args.forEach((a, i) => {
        const handed = viaPointer ? (a.k === 'var' && a.sym === sym ? sym : undefined) : addrOfVar(a);
        if (handed !== sym) return;
        if (passesThrough(cx, e, i, struct, depth, seen)) good++;
        else bad = true;
      });
    }
  });
  return !bad && total === good;
}

/** `s` itself (a struct local) or `*p` (a pointer parameter) as the base of a member access. */
function isBase(e: Expr, sym: Sym, viaPointer: boolean): boolean {
  if (!viaPointer) return e.k === 'var' && e.sym === sym;
  return e.k === 'deref' && e.e.k === 'var' && e.e.sym === sym;
}

/** Argument i of call e goes to an inlined function's parameter that only uses it member by member. */
function passesThrough(cx: SplitCtx, e: Expr & { k: 'call' }, i: number, struct: Type, depth: number, seen: Set<Sym>): boolean {
  if (depth >= MAX_DEPTH) return false;
  const f = cx.calleeSym(e);
  if (!f || !f.body || !cx.inlineable(f) || seen.has(f)) return false;
  const p = f.params?.[i];
  if (!p || p.addressTaken || !isPtr(p.type) || p.type.to !== struct || writes(f.body, p)) return false;
  seen.add(f);
  const ok = usedMemberwise(cx, f.body, p, struct, true, depth + 1, seen);
  seen.delete(f);
  return ok;
}

/** The struct locals of fn's body to split, with their members. */
export function splittableStructs(cx: SplitCtx, body: Stmt): Map<Sym, Member[]> {
  const out = new Map<Sym, Member[]>();
  const decls = new Map<Sym, number>();
  walkStmts(body, (st) => {
    if (st.k === 'decl') decls.set(st.sym, (decls.get(st.sym) ?? 0) + 1);
  });
  walkStmts(body, (st) => {
    if (st.k !== 'decl') return;
    const s = st.sym;
    if (s.global || s.isStatic || s.isVolatile || decls.get(s) !== 1) return;
    const members = splitMembers(s.type);
    if (!members || !memberwiseInit(st.init, members)) return;
    if (usedMemberwise(cx, body, s, s.type, false, 0, new Set())) out.set(s, members);
  });
  return out;
}
