/**
 * Which warnings the source and the command line silence, as clang decides
 * it: each of our warnings answers to clang's -W name for it, `-Wno-NAME`
 * and `-w` turn it off for the whole file, and
 * `#pragma GCC|clang diagnostic push|pop|ignored|warning|error "-WNAME"`
 * (or `_Pragma("…")`) from its place in the source onwards. Real projects
 * put these around noisy headers and macros; without them a learner would
 * see warnings clang does not print.
 *
 * Position works per file: a file starts with the state it was first
 * included with, then its own pragmas apply in order (a push/ignored/pop
 * pair around an #include covers the header's warnings).
 */
import type { Diagnostic, Span } from './diagnostics';

/** clang's -W name for each of our warning codes (the ones XDP Lab adds itself answer to none). */
export const WARNING_FLAG: Readonly<Record<string, string>> = {
  'sema-unused-variable': 'unused-variable',
  'sema-sign-compare': 'sign-compare',
  'sema-unreachable': 'unreachable-code',
  'sema-shift-count': 'shift-count-overflow',
  'sema-div-zero': 'division-by-zero',
  'sema-constant-conversion': 'constant-conversion',
  'sema-int-conversion': 'int-conversion',
  'sema-deref-void': 'void-ptr-dereference',
  'sema-excess-init': 'excess-initializers',
  'sema-init-overflow': 'excess-initializers',
  'sema-return-type': 'return-type',
  'pp-warning': '#warnings',
  'cc-loop-not-unrolled': 'pass-failed',
};

/** Groups a pragma or -Wno- may name instead (what of ours they cover). */
const GROUPS: Readonly<Record<string, readonly string[]>> = {
  unused: ['unused-variable'],
  conversion: ['constant-conversion', 'int-conversion', 'sign-compare'],
  'shift-count-negative': ['shift-count-overflow'],
  'unreachable-code-aggressive': ['unreachable-code'],
  extra: ['sign-compare'],
  all: ['unused-variable', 'return-type'],
  everything: [...new Set(Object.values(WARNING_FLAG))],
};

const expand = (name: string): readonly string[] => GROUPS[name] ?? [name];

type Action = 'ignored' | 'warning' | 'error';
type State = Map<string, Action>;

interface Event {
  line: number;
  col: number;
  op: 'push' | 'pop' | Action;
  flags: readonly string[];
}

const before = (e: Event, s: Span): boolean => e.line < s.line || (e.line === s.line && e.col < s.col);

export class DiagnosticPragmas {
  private live: State = new Map();
  private stack: State[] = [];
  private readonly initial = new Map<string, State>();
  private readonly events = new Map<string, Event[]>();

  /** The preprocessor starts reading a file (its first inclusion fixes the state it starts with). */
  enterFile(path: string): void {
    if (!this.initial.has(path)) this.initial.set(path, new Map(this.live));
  }

  /** `#pragma GCC|clang diagnostic …`; false when the words are not one. */
  pragma(words: readonly string[], at: Span): boolean {
    if ((words[0] !== 'GCC' && words[0] !== 'clang') || words[1] !== 'diagnostic') return false;
    const op = words[2];
    if (op !== 'push' && op !== 'pop' && op !== 'ignored' && op !== 'warning' && op !== 'error') return true;
    const name = /^"-W(.+)"$/.exec(words[3] ?? '')?.[1];
    if (op !== 'push' && op !== 'pop' && name === undefined) return true;
    const ev: Event = { line: at.line, col: at.col, op, flags: name === undefined ? [] : expand(name) };
    let list = this.events.get(at.file);
    if (!list) this.events.set(at.file, (list = []));
    list.push(ev);
    this.live = apply(this.live, this.stack, ev);
    return true;
  }

  /** What the pragmas in force at `span` say about -W`flag` (undefined: they say nothing). */
  actionAt(flag: string, span: Span): Action | undefined {
    let state: State = new Map(this.initial.get(span.file) ?? []);
    const stack: State[] = [];
    for (const ev of this.events.get(span.file) ?? []) {
      if (!before(ev, span)) break;
      state = apply(state, stack, ev);
    }
    return state.get(flag);
  }

  /**
   * The diagnostics as clang would print them: warnings turned off by -w, -Wno-NAME or an
   * `ignored` pragma dropped, the ones a pragma makes errors raised.
   */
  filter(list: readonly Diagnostic[], cmdline: { noWarnings: boolean; off: ReadonlySet<string> }): Diagnostic[] {
    const off = new Set([...cmdline.off].flatMap(expand));
    const out: Diagnostic[] = [];
    for (const d of list) {
      const flag = d.severity === 'warning' ? WARNING_FLAG[d.code] : undefined;
      if (flag === undefined) {
        out.push(d);
        continue;
      }
      const action = this.actionAt(flag, d.span) ?? (off.has(flag) ? 'ignored' : 'warning');
      if (cmdline.noWarnings || action === 'ignored') continue;
      out.push(action === 'error' ? { ...d, severity: 'error' } : d);
    }
    return out;
  }
}

function apply(state: State, stack: State[], ev: Event): State {
  if (ev.op === 'push') {
    stack.push(new Map(state));
    return state;
  }
  if (ev.op === 'pop') return stack.pop() ?? state;
  const next = new Map(state);
  for (const f of ev.flags) next.set(f, ev.op);
  return next;
}
