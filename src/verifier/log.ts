/**
 * The verifier log, in the kernel's format (kernel/bpf/log.c): positions
 * that can be rolled back (log level 1 keeps only the path to the error),
 * per-instruction state suffixes aligned like the kernel aligns them, and
 * register/stack printing of the scratched or all registers.
 */
import { formatReg, type MapInfo } from './reg';
import { SLOT_CHAR, STACK_DYNPTR, STACK_INVALID, STACK_SPILL, type Frame } from './state';

/**
 * libbpf's log buffer (BPF_LOG_BUF_SIZE, UINT32_MAX >> 8 = 16 MiB): what a
 * loader hands the kernel, and the bound on our log's memory.
 */
export const BPF_LOG_BUF_SIZE = 0xffffff;

/**
 * The log as the kernel's rotating log keeps it (kernel/bpf/log.c, 6.4+):
 * positions count every byte ever written, but only the last `size` bytes
 * are held; when older ones fall off, `truncated` says so (the kernel then
 * fails the load with ENOSPC). Rolling back to a position whose bytes are
 * gone empties the log, as bpf_vlog_reset does.
 */
export class VLog {
  /** Written text in chunks (appending and rolling back stay cheap on long logs). */
  private chunks: string[] = [];
  /** First live chunk (chunks before it have fallen off the front). */
  private head = 0;
  /** Bytes held in chunks[head..]. */
  private held = 0;
  /** Bytes that fell off the front. */
  private dropped = 0;
  truncated = false;
  constructor(
    public level: 0 | 1 | 2,
    readonly size = BPF_LOG_BUF_SIZE,
  ) {}
  get pos(): number {
    return this.dropped + this.held;
  }
  get text(): string {
    const live = this.chunks.slice(this.head);
    this.chunks = live.length > 1 ? [live.join('')] : live;
    this.head = 0;
    return this.chunks[0] ?? '';
  }
  write(s: string): void {
    if (!this.level || !s) return;
    this.chunks.push(s);
    this.held += s.length;
    while (this.held > this.size) {
      const first = this.chunks[this.head]!;
      const over = this.held - this.size;
      this.truncated = true;
      if (first.length <= over) {
        this.head++;
        this.held -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[this.head] = first.slice(over);
        this.held -= over;
        this.dropped += over;
      }
    }
    if (this.head > 1024 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }
  reset(pos: number): void {
    if (pos <= this.dropped) {
      this.chunks = [];
      this.head = 0;
      this.held = 0;
      this.dropped = pos;
      return;
    }
    while (this.pos > pos && this.chunks.length > this.head) {
      const last = this.chunks[this.chunks.length - 1]!;
      const keep = pos - (this.pos - last.length);
      if (keep > 0) {
        this.chunks[this.chunks.length - 1] = last.slice(0, keep);
        this.held -= last.length - keep;
      } else {
        this.chunks.pop();
        this.held -= last.length;
      }
    }
  }
}

/** vlog_alignment: where the "; R1=..." suffix starts after an instruction. */
export function vlogAlignment(pos: number): number {
  const BPF_LOG_ALIGNMENT = 8;
  const BPF_LOG_MIN_ALIGNMENT = 40;
  const x = Math.max(pos + BPF_LOG_ALIGNMENT / 2, BPF_LOG_MIN_ALIGNMENT);
  return Math.ceil(x / BPF_LOG_ALIGNMENT) * BPF_LOG_ALIGNMENT - pos - 1;
}

/**
 * print_verifier_state: " R1=ctx() R10=fp0 fp-8=mmmmmmmm" — every
 * initialised register and stack slot, or only the scratched ones.
 */
export function formatFrame(
  f: Frame,
  maps: readonly MapInfo[],
  scratchedRegs: number | null,
  scratchedStack: ((spi: number) => boolean) | null,
): string {
  let s = '';
  if (f.frameno) s += ` frame${f.frameno}:`;
  for (let i = 0; i < f.regs.length; i++) {
    const r = f.regs[i]!;
    if (r.type === 'not_init') continue;
    if (scratchedRegs !== null && !(scratchedRegs & (1 << i))) continue;
    s += ` R${i}=${formatReg(r, maps, f.frameno)}`;
  }
  for (let spi = 0; spi < f.stack.length; spi++) {
    const sl = f.stack[spi]!;
    if (sl.types.every((t) => t === STACK_INVALID)) continue;
    if (scratchedStack !== null && !scratchedStack(spi)) continue;
    const name = ` fp${-(spi + 1) * 8}`;
    if (sl.types[7] === STACK_DYNPTR) {
      // A dynptr prints once, at its first slot (the lower address): "fp-16=dynptr_xdp(id=2)".
      if (sl.dynptr?.first) s += `${name}=dynptr_${sl.dynptr.type}(id=${sl.dynptr.id})`;
    } else if (sl.types[7] === STACK_SPILL) {
      // A partial spill prints the types of the bytes below it first.
      let prefix = '';
      let k = 7;
      while (k > 0 && sl.types[k - 1] === STACK_SPILL) k--;
      for (let j = 0; j < k; j++) prefix += SLOT_CHAR[sl.types[j]!];
      s += `${name}=${prefix}${formatReg(sl.spilled, maps, f.frameno)}`;
    } else {
      s += `${name}=${sl.types.map((t) => SLOT_CHAR[t]).join('')}`;
    }
  }
  return s;
}
