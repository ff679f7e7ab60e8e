/**
 * Every verifier rejection explained in a learner's terms, from the
 * verifier's own state: which C line did what, what the verifier knew there,
 * why that is not enough, the branches that led there, and a concrete fix as
 * code to insert at a line.
 *
 *   const e = explain({ parsed, result }, { recheck });
 *   e.kind, e.line, e.column, e.summary, e.detail, e.path, e.fix, e.message
 *
 * A fix is proposed from the same facts; when the caller passes `recheck`
 * (compile + verify a source), candidates are tried and only one that makes
 * this error go away is returned. Pure and deterministic.
 */
import type { ParsedSpec } from '../isa/spec';
import type { VerifyResult } from '../verifier';
import { XDP_METADATA_KFUNCS } from '../verifier/kfunc';
import { classify, lastBackEdge, releaseFor, type ExplainKind, type Facts } from './classify';
import { fixCandidates, type Fix } from './fix';
import { applyFix as applyFixText, functionAround, lineAfterFix, namesAround, pathLines, posOfPc, takenReturn } from './source';

export type { ExplainKind } from './classify';
export type { Edit, Fix } from './fix';
export { applyFix, editHeading } from './source';

export interface Explanation {
  kind: ExplainKind;
  /** The C line (1-based) of the offending instruction, and its column. */
  line: number;
  column: number;
  summary: string;
  detail: string;
  /** The C lines of the path of branches that led to the error, first to last. */
  path: number[];
  /** Code to insert before `line` (or to put in its place when `replace`); absent when no mechanical fix exists. */
  fix?: Fix;
  /** The kernel's own words, kept beside the explanation. */
  message: string;
  /** The failing instruction. */
  pc: number;
}

/** Compile and verify a changed source: accepted, or the C line of the new first error; null when it does not compile. */
export type Recheck = (source: string) => { accepted: boolean; line?: number; kind?: ExplainKind } | null;

export interface ExplainInput {
  parsed: ParsedSpec;
  result: VerifyResult;
}

function plural(n: number, w: string): string {
  return `${n} ${w}${n === 1 ? '' : 's'}`;
}

/** What an acquired reference is, in a learner's words. */
function heldThing(acquire: string | undefined): string {
  if (acquire === undefined) return 'a reference';
  // What gives it back says what it is (releaseFor knows the acquiring calls).
  const release = releaseFor(acquire);
  return release === 'bpf_ringbuf_discard' ? 'a ring buffer record' : release === 'bpf_ct_release' ? 'a reference to a conntrack entry' : 'a reference to a socket';
}

function describe(f: Facts, names: ReturnType<typeof namesAround>, code: string, causeLine?: number): { summary: string; detail: string } {
  const atCause = causeLine !== undefined ? ` at line ${causeLine}` : '';
  const R = f.regno !== undefined ? `R${f.regno}` : 'the register';
  const at = `\`${code}\``;
  const r = f.reg;
  switch (f.kind) {
    case 'pkt-access': {
      const need = (r?.off ?? 0) + (f.insnOff ?? 0) + (f.size ?? 0);
      const have = r?.range ?? 0;
      if (r?.type === 'pkt_end') return { summary: `${at} reads through data_end, which points just past the packet.`, detail: `${R} is data_end: nothing may be read or written there. Compare pointers against it; access memory through data.` };
      const varPart = r && (r.umax !== '0' || r.smin !== '0');
      return {
        summary: `${at} ${f.helper ? `passes packet memory to ${f.helper}` : 'accesses'} ${plural(f.size ?? 0, 'byte')} at offset ${(r?.off ?? 0) + (f.insnOff ?? 0)} of the packet${varPart ? ' (past a variable offset)' : ''}; at this point only ${plural(have, 'byte')} past that pointer ${have === 1 ? 'is' : 'are'} proven to exist.`,
        detail:
          `The verifier only allows packet accesses it can prove stay before data_end. On this path the last comparison against data_end proved ${have} bytes (r=${have}), ` +
          `but this access needs ${need}. Every path to this line must first compare the pointer plus the bytes it reads with data_end and leave when the packet is too short.`,
      };
    }
    case 'pkt-unbounded-offset':
      return {
        summary: `${at} moves a packet pointer by a value the verifier cannot bound${r && BigInt(r.smin) < 0n ? ` (it may be as low as ${r.smin})` : ''}.`,
        detail:
          `${R} is a scalar with signed range [${r?.smin ?? '?'}, ${r?.smax ?? '?'}] and unsigned maximum ${r?.umax ?? '?'}. A packet pointer may only move by an offset ` +
          `known to be non-negative and below 65536, so the offset must be checked first (a signed int needs an explicit \`< 0\` test; or make it unsigned and cap it).`,
      };
    case 'pkt-end-arith':
      return {
        summary: `${at} does arithmetic on data_end; the verifier only allows comparing data_end, never moving it.`,
        detail: `Rewrite the test from the start of the packet: instead of \`data_end - N < p\` write \`p + N > data_end\`. The verifier learns a range from such a comparison; it forbids any arithmetic on data_end (${R} is pkt_end).`,
      };
    case 'pointer-arith': {
      const what = f.op ? `\`${f.op}\`${f.alu32 ? ' in 32 bits' : ''}` : 'arithmetic';
      if (r && /_or_null$/.test(r.type))
        return {
          summary: `${at} computes ${what} on ${R}, the result of a map lookup that may still be NULL.`,
          detail: `The verifier refuses arithmetic on a pointer that may be NULL (${R} is ${r.type}): test the lookup's result against NULL first, then take fields or addresses from it.`,
        };
      return {
        summary: `${at} applies ${what} to a pointer (${R} is ${r?.type ?? 'a pointer'}); the verifier allows only adding or subtracting a bounded number to it.`,
        detail:
          `A pointer may only move by a known-bounded scalar with 64-bit + or -; any other operation (&, |, *, shifts, 32-bit arithmetic) would turn an address into a number the program could leak or forge. ` +
          (r?.type === 'pkt' || r?.type === 'pkt_meta' ? `What you want is probably the offset from ${names.data}: compute \`(void *)p - ${names.data}\`, which is a plain number you may test freely.` : 'Work on an offset (a plain number) and add it to the pointer at the end.'),
      };
    }
    case 'scalar-deref': {
      const why: Record<string, string> = {
        load: 'It was read from memory (a map value or another object): a pointer stored there comes back as a plain number, because the verifier cannot know what was stored. Store the offset from data instead and add it to data after reading it, then check it against data_end.',
        call: 'It is what a helper returned as an integer; a helper that returns a pointer says so in its prototype (like bpf_map_lookup_elem).',
        alu32: 'It went through 32-bit arithmetic (a cast to __u32 or int), which cuts a pointer down to a number. Keep pointers in pointer types (or long) all the way.',
        const: 'It was set from a constant: an address written in the program is not a pointer the verifier knows.',
      };
      return {
        summary: `${at} dereferences ${R}, which the verifier only knows as a number, not as a pointer.`,
        detail: `${f.origin ? why[f.origin] : 'A value loaded from memory, computed with 32-bit arithmetic or returned by a helper as an integer is a scalar.'} The verifier lets a program dereference only pointers it derived itself: from ${names.ctx}->data, a map lookup or the stack.`,
      };
    }
    case 'stale-pkt-pointer':
      return {
        summary: `${at} uses a packet pointer taken before a call that moved the packet; that pointer is no longer valid.`,
        detail:
          `A helper or kfunc that changes the packet (bpf_xdp_adjust_head, _meta, _tail, bpf_xdp_pull_data) invalidates every packet pointer the program held: after it ${R} is only a number. ` +
          `Re-read ${names.ctx}->data and ${names.ctx}->data_end after the call, recompute the pointer and check the bounds again.`,
      };
    case 'null-deref':
      if (f.acquire !== undefined) {
        const release = releaseFor(f.acquire);
        const when = release === 'bpf_ringbuf_discard' ? 'when the ring buffer has no room left for the record' : release === 'bpf_ct_release' ? 'when no conntrack entry matches (or none can be made)' : 'when no socket matches the tuple';
        return {
          summary: `${at} ${f.helper ? `passes ${R} to ${f.helper}` : `dereferences ${R}`}, the result of ${f.acquire}${atCause}, which may be NULL.`,
          detail: `${f.acquire} returns NULL ${when}; on this path nothing has compared the result with NULL (${R} is ${r?.type}). Test it and leave when it is NULL (there is then nothing to release).`,
        };
      }
      if (f.dynptr === 'slice-null')
        return {
          summary: `${at} dereferences ${R}, a dynptr slice that may be NULL.`,
          detail: `bpf_dynptr_slice and bpf_dynptr_slice_rdwr return NULL when the bytes asked for are not inside the dynptr (a packet shorter than offset + size); on this path nothing has compared the result with NULL (${R} is ${r?.type}). Test it and leave when it is NULL.`,
        };
      return {
        summary: `${at} ${f.helper ? `passes ${R} to ${f.helper}` : `dereferences ${R}`}, the result of a map lookup that may be NULL.`,
        detail: `bpf_map_lookup_elem returns NULL when the key is not in the map; on this path nothing has compared the result with NULL (${R} is ${r?.type}). Test it and leave when it is NULL; after the test the verifier knows it is a map value (from an array or hash of maps: the inner map).`,
      };
    case 'map-value-access': {
      const vs = f.valueSize;
      // No variable part: a fixed offset past the value's end (a constant index too large, a struct larger than the value).
      if (r && r.umax === '0' && r.smin === '0') {
        const off = r.off + (f.insnOff ?? 0);
        return {
          summary: `${at} accesses ${plural(f.size ?? 0, 'byte')} at offset ${off} of a ${vs ?? '?'}-byte map value: ${off >= (vs ?? Infinity) ? 'past its end' : 'running past its end'}.`,
          detail:
            `The map's values are ${vs ?? '?'} bytes (the value type it was declared with), and this access ends at byte ${off + (f.size ?? 0)}. ` +
            'A constant index beyond its array\'s last element, or a pointer to a larger struct than the map holds: index within the array, or declare the map with the larger value type.',
        };
      }
      return {
        summary: `${at} accesses a map value at an offset the verifier cannot keep inside the ${vs ?? '?'}-byte value.`,
        detail:
          `${R} points into a map value with a variable offset (unsigned range ${r?.umin ?? '?'}..${r?.umax ?? '?'}); reading ${plural(f.size ?? 0, 'byte')} there could go past byte ${vs ?? '?'}. ` +
          `Check the index against the number of elements before using it.`,
      };
    }
    case 'ctx-access':
      // egress_ifindex (offset 20) exists only for a program run by a devmap entry (expected_attach_type BPF_XDP_DEVMAP).
      if ((r?.off ?? 0) + (f.insnOff ?? 0) === 20 && f.size === 4)
        return {
          summary: `${at} reads ${names.ctx}->egress_ifindex, which only a program attached to a devmap entry may read.`,
          detail:
            'egress_ifindex is the device a redirected frame is about to leave by; it exists only for programs that a devmap runs on frames it transmits (SEC("xdp/devmap"), expected_attach_type BPF_XDP_DEVMAP). ' +
            `A program on a device's receive path has no egress device yet: use ${names.ctx}->ingress_ifindex for the device the frame arrived on.`,
        };
      return {
        summary: `${at} reads ${plural(f.size ?? 0, 'byte')} at offset ${(r?.off ?? 0) + (f.insnOff ?? 0)} of struct xdp_md, which is not a field the program may read that way.`,
        detail: `struct xdp_md has six __u32 fields (data, data_end, data_meta, ingress_ifindex, rx_queue_index, egress_ifindex) at offsets 0..20; each must be read whole, 4 bytes, through ${names.ctx}.`,
      };
    case 'ctx-write':
      return { summary: `${at} writes to the XDP context; struct xdp_md is read-only for XDP programs.`, detail: `The verifier refuses any store through ${R} (the ctx pointer). Keep the value in a local variable or in the packet instead.` };
    case 'stack-access': {
      const off = (r?.off ?? 0) + (f.insnOff ?? 0);
      if (f.size !== undefined && off % f.size !== 0)
        return {
          summary: `${at} accesses ${plural(f.size, 'byte')} of the stack at offset ${off}, which is not a multiple of ${f.size}.`,
          detail: `The verifier requires every stack access to be aligned to its size (a ${f.size}-byte access at an offset divisible by ${f.size}). Casting \`buf + k\` to a wider pointer type breaks that; copy the bytes with \`__builtin_memcpy\` instead, which the compiler turns into accesses of the alignment it can prove.`,
        };
      // A variable offset (an array indexed by a value the verifier cannot bound to it): it may reach outside the array.
      if (r && r.varOff.mask !== '0x0')
        return {
          summary: `${at} indexes a stack array with a value the verifier cannot keep inside it (${R} is the stack pointer plus a variable up to ${r.umax}).`,
          detail:
            `The verifier checks a variable stack access at every offset the index may give (var_off ${r.varOff.value}/${r.varOff.mask} on top of ${off}): all of them must be inside the initialised array. ` +
            'Here the index comes from a value it cannot bound (a packet field, a map value): compare the index with the number of elements right before the access and leave when it is too large.',
        };
      return {
        summary: `${at} accesses ${plural(f.size ?? 0, 'byte')} of the stack at offset ${off}, outside the function's 512-byte frame.`,
        detail: `A BPF function's stack is the 512 bytes below the frame pointer (offsets -512..-1). The access falls outside them: check the array index against the array's size.`,
      };
    }
    case 'uninit-stack':
      return {
        summary: `${at} ${f.helper ? `passes ${f.helper} a pointer to stack memory` : 'reads stack memory'} that was never written on this path.`,
        detail: `Initialise the variable (e.g. \`= 0\` or \`= {}\`) before using it or passing its address to a helper.`,
      };
    case 'uninit-reg':
      if (f.regno === 0 && /\b(asm|__asm__|__asm)\b/.test(code))
        return {
          summary: `The \`exit\` in the inline asm ${at} leaves the function with no return value in r0 on this path (R0 !read_ok).`,
          detail:
            `An exit returns what r0 holds, and nothing on this path wrote r0 before the asm's exit (the C code's own \`return\` is after the asm and never runs on this path). ` +
            `Set r0 in the asm before it exits (e.g. \`r0 = 2\`, XDP_PASS), and list "r0" among the statement's clobbers so the compiler keeps nothing of its own there.`,
        };
      return f.regno === 0
        ? { summary: `The function ends without a return value on this path (R0 !read_ok).`, detail: `Every path out of a BPF function must set R0: add a return statement at the end of the function.` }
        : { summary: `${at} uses R${f.regno ?? '?'}, which holds no value on this path.`, detail: `Registers are only readable after they are written; initialise the variable on every path.` };
    case 'helper-arg':
      if (f.mapIncompatible)
        return {
          summary: `${at} calls ${f.helper ?? 'a helper'} with a map of a type that helper does not accept.`,
          detail:
            `The arguments have the right kinds, but the verifier checks which map types each helper may be given (check_map_func_compatibility); this map's type is not among them for ${f.helper ?? 'this helper'}. ` +
            (f.mapTypes?.length
              ? `${f.helper ?? 'It'} takes only ${f.mapTypes.map((t) => `BPF_MAP_TYPE_${t.toUpperCase()}`).join(', ')}: declare the map with one of those types, or use the helper meant for this map's type.`
              : 'Use the helper meant for that map type, or another map type.'),
        };
      if (f.pktDenied)
        return {
          summary: `${at} passes packet memory to ${f.helper ?? 'a helper'} (argument ${f.arg ?? '?'}), which may not read or write the packet directly.`,
          detail:
            `Only some helpers may be given a pointer into the packet (their prototype says pkt_access: the map lookups and updates, bpf_csum_diff, the socket lookups, the syncookie helpers); ${f.helper ?? 'this one'} is not among them (${R} is ${r?.type ?? 'pkt'}). ` +
            'Copy the bytes to the stack first (a local struct filled with __builtin_memcpy after the bounds check, or bpf_xdp_load_bytes into a stack buffer) and pass its address. To send the packet itself to user space, bpf_perf_event_output takes the packet length in the upper 32 bits of its flags.',
        };
      if (f.sizeIssue !== undefined) {
        const range = r && BigInt(r.smin) < 0n ? `${R} may be anything from ${r.smin} to ${r.smax}` : `${R} is in [${r?.umin ?? '?'}, ${r?.umax ?? '?'}]`;
        const cap = f.sizeCap !== undefined ? ` the ${plural(f.sizeCap, 'byte')} the memory before it holds` : ' what any helper takes';
        const why = f.sizeIssue === 'negative' ? 'may be negative' : f.sizeIssue === 'zero' ? `may be 0, and ${f.helper ?? 'the helper'} needs at least one byte` : `may be more than${cap}`;
        return {
          summary: `${at} passes ${f.helper ?? 'a helper'} a length (argument ${f.arg ?? '?'}) that ${why}.`,
          detail:
            `The verifier checks a length against every value it may have on this path (${range}): it must not be negative${f.wanted === 'ARG_CONST_SIZE' ? ', not 0 (this helper\'s size is ARG_CONST_SIZE, not _OR_ZERO)' : ''}, ` +
            `and at most the bytes the pointer before it may reach${f.sizeCap !== undefined ? ` (${f.sizeCap} here)` : ''}. Test the length against both ends right before the call and leave when it is out of range; an unsigned type keeps it from being negative.`,
        };
      }
      if (f.wanted === 'ARG_CONST_ALLOC_SIZE_OR_ZERO')
        return {
          summary: `${at} asks ${f.helper ?? 'bpf_ringbuf_reserve'} for a number of bytes the verifier does not know (argument ${f.arg ?? 2}).`,
          detail:
            `The size of a ring buffer record is part of the pointer ${f.helper ?? 'bpf_ringbuf_reserve'} returns, so it must be a constant (sizeof the event struct); ${R} holds ${r?.text ?? 'a value'}. ` +
            'To send a variable amount, reserve the largest size you need and record the length inside, or use bpf_ringbuf_output, which copies a length the verifier can bound.',
        };
      if (f.arg === undefined)
        return {
          summary: `${at} calls ${f.helper ?? 'a helper'} with arguments the verifier refused.`,
          detail: `Each argument register must hold what ${f.helper ?? 'the helper'}'s prototype asks for (a map, a pointer to enough initialised memory, a bounded size); the kernel's message beside this explanation names the register and what it held.`,
        };
      return {
        summary: `${at} calls ${f.helper ?? 'a helper'} with argument ${f.arg} of the wrong kind${r ? ` (${r.type})` : ''}.`,
        detail: f.wanted ? `The helper's prototype wants ${f.wanted} for argument ${f.arg}; ${R} holds ${r?.text ?? 'nothing'}.${r?.type === 'pkt' ? ' Packet memory passed to a helper must be bounds-checked for the full size the helper reads.' : ''}` : 'The arguments do not match the helper\'s prototype.',
      };
    case 'loop':
      if (f.jumpSeq)
        return {
          summary: `${at} is a loop that leaves the verifier one more branch to check on every trip; after 8192 of them it gives up.`,
          detail:
            `The verifier follows one path at a time and remembers each branch it has yet to check. Here the test that ends the loop can go either way on every trip, ` +
            `and nothing bounds the number of trips, so the walk around the loop never ends and the branches pile up (the kernel's "The sequence of 8193 jumps is too complex"). ` +
            `Give the loop a constant upper bound (e.g. count the trips and stop after 64).`,
        };
      if (f.infinite)
        return {
          summary: `${at} is a loop that can come back to its start with nothing changed: the verifier proves it could run forever.`,
          detail: `On some path through the body (a \`continue\` or a branch that skips the counter's update) every register and stack slot the loop depends on is the same as on the previous trip, so nothing can make it end (the kernel's "infinite loop detected"). Make every path advance the loop, or cap the number of trips.`,
        };
      return {
        summary: `${at} is in a loop the verifier could not prove finishes within 1,000,000 instructions.`,
        detail: `The verifier walks every iteration. Give the loop a constant upper bound (e.g. \`i < 64\`) so each path through it is finite and short.`,
      };
    case 'stack-size':
      return {
        summary: `The functions on one call chain use ${f.stackBytes ?? '>512'} bytes of stack together; the limit is 512.`,
        detail: `Each BPF function's frame is rounded up to 16 bytes and a call chain's frames add up. Move large buffers to a per-CPU array map, or make them smaller.`,
      };
    case 'kfunc-unavailable': {
      const name = f.kfunc ?? 'a kernel function';
      if (f.kfunc !== undefined && XDP_METADATA_KFUNCS.has(f.kfunc))
        return {
          summary: `${at} calls ${name}, an XDP metadata kfunc: the kernel lets only a program loaded for one particular device call it.`,
          detail:
            `The rx timestamp, hash and VLAN tag come from the NIC driver's own descriptors, so a program that reads them must be bound to that device when it is loaded ` +
            `(device-bound: libbpf's bpf_program__set_ifindex with BPF_F_XDP_DEV_BOUND_ONLY), and the driver must implement them. A program loaded for any device, ` +
            `as every program in XDP Lab is, cannot call them; the kernel refuses it before it verifies anything. Remove the call (or keep it for the real device behind a build flag).`,
        };
      return {
        summary: `${at} calls ${name}, a kernel function (kfunc) XDP programs may not call.`,
        detail:
          `A kfunc can be called only from the program types its subsystem registers it for, and only if the running kernel has it; the kernel checks every kfunc call before it verifies anything. ` +
          `XDP programs here may call the conntrack kfuncs (bpf_xdp_ct_lookup, bpf_ct_release, ...), bpf_xdp_pull_data and the XDP dynptr kfuncs (bpf_dynptr_from_xdp, bpf_dynptr_slice, bpf_dynptr_slice_rdwr). Check the name, or do the work with a helper (bpf_*) instead.`,
      };
    }
    case 'dynptr':
      return describeDynptr(f, at, R);
    case 'unreleased-ref': {
      const thing = heldThing(f.acquire);
      const give = f.acquire === 'bpf_ringbuf_reserve' ? 'bpf_ringbuf_submit (to send it) or bpf_ringbuf_discard (to drop it)' : (f.release ?? 'its release function');
      if (f.helper === 'bpf_tail_call')
        return {
          summary: `${at} jumps to another program while this one still holds ${thing} that ${f.acquire ?? 'a call'}${atCause} returned.`,
          detail:
            `A tail call does not come back when it succeeds, so whatever the program acquired would never be given back; the verifier refuses a tail call with a reference held (the kernel's "tail_call would lead to reference leak"). ` +
            `Call ${give} before the tail call.`,
        };
      return {
        summary: `${at} leaves the program while it still holds ${thing} that ${f.acquire ?? 'a call'}${atCause} returned.`,
        detail:
          `The verifier counts what a program acquires (a ring buffer record from bpf_ringbuf_reserve, a socket from bpf_sk_lookup_* or bpf_skc_lookup_tcp, a conntrack entry) and refuses any path that ends without giving it back, ` +
          `since the kernel would leak it (the kernel's "Unreleased reference"). On this path nothing gave this one back: call ${give} before this return, on every path that returns after the NULL test.`,
      };
    }
    case 'released-ref':
      return {
        summary: `${at} uses ${R} after ${f.release ?? 'a release'}${atCause} gave it back: it no longer points anywhere.`,
        detail:
          `${f.acquire === 'bpf_ringbuf_reserve' ? 'Once a record is submitted or discarded it belongs to the ring buffer\'s reader' : 'Once a reference is released the object is no longer the program\'s'}, and the verifier turns every copy of the pointer into a plain number (${R} is now ${r?.type ?? 'a scalar'}). ` +
          `Do everything with it first and call ${f.release ?? 'the release'} last.`,
      };
    case 'mem-access': {
      const off = (r?.off ?? 0) + (f.insnOff ?? 0);
      const have = r?.range;
      return {
        summary: `${at} accesses ${plural(f.size ?? 0, 'byte')} at offset ${off} of a record bpf_ringbuf_reserve${atCause} reserved with ${have !== undefined ? plural(have, 'byte') : 'fewer bytes'}.`,
        detail:
          `A ring buffer record is exactly as large as the size given to bpf_ringbuf_reserve (its second argument), and the verifier allows accesses only inside it (${R} is ${r?.text ?? 'ringbuf_mem'}). ` +
          `Reserve enough for everything you write (sizeof the event struct you fill), or write less.`,
      };
    }
    case 'map-readonly':
      return {
        summary: `${at} writes to read-only data: ${f.mapName ? `the ${f.mapName} map, ` : ''}where the program's \`const\` globals live.`,
        detail:
          'A global declared `const` (typically `const volatile`, which the loader may set before the program loads) goes in .rodata, a map libbpf creates read-only for the program (BPF_F_RDONLY_PROG) and freezes: the verifier refuses every store into it. ' +
          'To change the value at run time, declare it without `const` (it then lives in .data or .bss), or keep it in a map.',
      };
    default:
      return { summary: `${at} was refused by the verifier.`, detail: 'See the kernel\'s message beside this explanation.' };
  }
}

export function explain(input: ExplainInput, opts: { recheck?: Recheck } = {}): Explanation | null {
  const { parsed, result } = input;
  if (result.accepted) return null;
  const funcStarts = [0, ...(parsed.spec.funcs ?? []).map((f) => f.insn).filter((i) => i > 0)];
  const facts = classify(parsed.insns, parsed.spec.maps ?? [], result, funcStarts, new Map((parsed.spec.kfunc_relocs ?? []).map((r) => [r.insn, r.name])));
  if (facts.kind === 'kfunc-unavailable') facts.kfunc = parsed.spec.kfunc_relocs?.find((r) => r.insn === facts.pc)?.name;
  const li = parsed.spec.line_info ?? [];
  const source = parsed.spec.source ?? '';
  const lines = source.split('\n');
  // A loop that never ends is about the loop, not the instruction the walk happened to stop on.
  const loopPc = facts.kind === 'loop' ? lastBackEdge(parsed.insns, result.errorPath ?? []) : undefined;
  let pos = posOfPc(li, loopPc ?? facts.pc) ?? { line: 1, column: 1 };
  let shared: number | undefined;
  // A leak is at the return the path took, which may share its exit instruction with an equal return elsewhere.
  if (facts.kind === 'unreleased-ref') {
    const taken = takenReturn(lines, pathLines(li, result.errorPath ?? []), pos.line);
    if (taken !== undefined) {
      shared = pos.line;
      pos = { line: taken, column: (lines[taken - 1] ?? '').indexOf('return') + 1 };
    }
  }
  const code = (lines[pos.line - 1] ?? '').trim();
  const names = namesAround(lines, pos.line);
  const { summary, detail } = describe(facts, names, code, facts.cause !== undefined ? posOfPc(li, facts.cause)?.line : undefined);
  const path = pathLines(li, result.errorPath ?? []);
  if (shared !== undefined && path[path.length - 1] === shared) path[path.length - 1] = pos.line;
  const out: Explanation = { kind: facts.kind, line: pos.line, column: pos.column, summary, detail, path, message: result.error ?? 'rejected', pc: facts.pc };
  if (source) {
    const causeLine = facts.cause !== undefined ? posOfPc(li, facts.cause)?.line : undefined;
    // The call site that led into the function holding the failing line (an inlined helper without data_end).
    const fn = functionAround(lines, pos.line);
    const pl = pathLines(li, result.errorPath ?? []);
    const outside = [...pl].reverse().find((l) => l < fn.start || l > fn.end);
    // An inlined call has no instruction of its own: find the call by the function's name in the caller.
    const fname = /(\w+)\s*\(/.exec(lines[fn.start - 1] ?? '')?.[1];
    let callerLine: number | undefined;
    if (outside !== undefined && fname) {
      const cf = functionAround(lines, outside);
      for (let l = cf.start + 1; l <= cf.end && callerLine === undefined; l++) if (new RegExp(`\\b${fname}\\s*\\(`).test(lines[l - 1] ?? '')) callerLine = l;
    }
    const cands = fixCandidates(facts, lines, pos.line, names, causeLine, callerLine, callerLine !== undefined ? namesAround(lines, callerLine) : undefined);
    const fix = pickFix(cands, source, pos.line, facts.kind, opts.recheck);
    if (fix) out.fix = fix;
  }
  return out;
}

/** The first candidate that makes this error go away (accepted, or the first error now elsewhere); without recheck, the first. */
function pickFix(cands: Fix[], source: string, line: number, kind: ExplainKind, recheck: Recheck | undefined): Fix | undefined {
  if (!recheck) return cands[0];
  let moved: Fix | undefined;
  for (const c of cands.slice(0, 24)) {
    const r = recheck(applyFixText(source, c));
    if (!r) continue;
    if (r.accepted) return c;
    const sameSpot = r.line === lineAfterFix(c, line) && r.kind === kind;
    if (!sameSpot && !moved) moved = c;
  }
  return moved;
}

/** The dynptr rules (kernel/bpf/verifier.c process_dynptr_func, the slice kfuncs' checks), in a student's words. */
function describeDynptr(f: Facts, at: string, R: string): { summary: string; detail: string } {
  switch (f.dynptr) {
    case 'szk':
      return {
        summary: `${at} asks bpf_dynptr_slice for a number of bytes the verifier does not know.`,
        detail: 'buffer__szk, the last argument, must be a constant (sizeof the header you read): the verifier gives the returned pointer exactly that many bytes.',
      };
    case 'slice-bounds':
      return {
        summary: `${at} accesses ${R}, a dynptr slice, outside the bytes it was asked for.`,
        detail: 'A slice covers exactly the buffer__szk bytes it was asked for, from its start; to read further, ask for a bigger slice, or for a second one at the later offset.',
      };
    case 'slice-rdonly':
      return {
        summary: `${at} writes through ${R}, a slice from bpf_dynptr_slice, which is read-only.`,
        detail: 'Use bpf_dynptr_slice_rdwr for a slice the program may write, or bpf_dynptr_write to copy bytes into the packet.',
      };
    case 'bytes':
      return {
        summary: `${at} reads the bytes of a struct bpf_dynptr as data.`,
        detail: 'A dynptr is the kernel\'s: the program may only pass its address to the dynptr kfuncs and helpers, never read, copy or assign it. Keep it where bpf_dynptr_from_xdp put it.',
      };
    default:
      return {
        summary: `${at} passes a struct bpf_dynptr the verifier cannot use there.`,
        detail:
          'A dynptr lives on the stack at a fixed, 8-byte aligned place (a local `struct bpf_dynptr ptr;`, passed as `&ptr`). bpf_dynptr_from_xdp must have made it on every path before a slice or bpf_dynptr_read/write uses it, ' +
          'and any store into its 16 bytes destroys it.',
      };
  }
}
