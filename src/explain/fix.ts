/**
 * Fix candidates for one rejection, written with the program's own names:
 * code to insert before a line (a bounds check, a NULL test, an index check,
 * re-reading data/data_end after bpf_xdp_adjust_head, a return) or a line
 * to put in place of the offending one. The caller keeps the first that
 * verifies (explain's recheck); the order here is most specific first.
 */
import type { Facts } from './classify';
import { assignmentOf, constIndexEnds, derefNames, functionAround, identifiers, indentOf, indexNames, type Names } from './source';

export interface Edit {
  /** 1-based line: the code goes before it (or replaces it when `replace`). */
  line: number;
  /** The code, one or more lines, already indented. */
  insert: string;
  replace?: boolean;
}

export interface Fix extends Edit {
  /** Further edits the fix needs elsewhere (a map declared before the function); line numbers are the original source's. */
  also?: Edit[];
}

/** Lines before which a statement may be inserted without changing what surrounds it: L, then earlier statement starts. */
function insertionLines(lines: readonly string[], line: number, lowest: number): number[] {
  const out: number[] = [];
  for (let l = line; l >= Math.max(lowest, line - 12) && out.length < 4; l--) {
    const text = (lines[l - 1] ?? '').trim();
    if (/^(else\b|}|\{|#)/.test(text) || text === '') continue;
    let p = l - 1;
    while (p >= 1 && (lines[p - 1] ?? '').trim() === '') p--;
    const prev = (lines[p - 1] ?? '').trim().replace(/\/\/.*$/, '').replace(/\/\*.*\*\/\s*$/, '').trim();
    // After `if (x)` without braces, an inserted statement would become the if's body.
    if (p >= 1 && !/[;{}]$/.test(prev) && !prev.endsWith('*/')) continue;
    out.push(l);
  }
  return out;
}

/** Whether NAME is declared or assigned in the function before `line` (a guard may only name what exists there). */
function assignedBefore(lines: readonly string[], name: string, line: number, start: number): boolean {
  const re = new RegExp(`\\b${name}\\s*(=[^=]|;|,|\\))`);
  for (let l = start; l < line; l++) if (re.test(lines[l - 1] ?? '')) return true;
  return false;
}

function block(indent: string, ...stmts: string[]): string {
  return stmts.map((s) => s.split('\n').map((x) => indent + x).join('\n')).join('\n');
}

/** Candidates for an access inside a helper function that cannot see data_end: guard the pointer at the call site instead. */
function callSiteGuards(f: Facts, lines: readonly string[], callerLine: number, caller: Names): Fix[] {
  const text = lines[callerLine - 1] ?? '';
  const fn = functionAround(lines, callerLine);
  const r = f.reg;
  const need = r && r.umax === '0' && r.smin === '0' ? r.off + (f.insnOff ?? 0) + (f.size ?? 0) : undefined;
  // The bytes the helper reads past the pointer it was given: this access's, then the usual header sizes.
  const sizes = [...new Set([need, 8, 12, 14, 20, 34, 42, 54, 64].filter((k): k is number => k !== undefined && k > 0 && k <= 0xffff))].sort((a, b) => a - b);
  const args = /\w+\s*\((.*)\)/.exec(text)?.[1] ?? '';
  const out: Fix[] = [];
  for (const l of insertionLines(lines, callerLine, fn.start + 1))
    for (const n of identifiers(args).filter((x) => x !== caller.ctx && x !== caller.dataEndVar))
      for (const k of sizes) out.push({ line: l, insert: block(indentOf(lines[l - 1] ?? ''), `if ((void *)${n} + ${k} > ${caller.dataEnd})\n\treturn ${caller.action};`) });
  return out;
}


/** The values of the XDP actions, for a return value written in asm. */
export const XDP_ACTION_VALUES: Record<string, number> = { XDP_ABORTED: 0, XDP_DROP: 1, XDP_PASS: 2, XDP_TX: 3, XDP_REDIRECT: 4 };

/**
 * An inline asm statement starting on `line` whose template has an `exit`: the same statement with `r0 = VALUE`
 * first in its template and "r0" among its clobbers (so the compiler keeps nothing of its own in r0 across it).
 * Put first, the new instruction moves no jump of the template relative to its target.
 */
export function asmReturnFix(lines: readonly string[], line: number, value: number): Fix | undefined {
  // The statement may start a few lines above the line the exit was attributed to.
  for (let l = line; l >= Math.max(1, line - 10); l--) {
    const fix = asmReturnFixAt(lines, l, value);
    if (fix && lineSpan(fix) >= line) return fix;
    if (fix) return undefined;
  }
  return undefined;
}

function lineSpan(fix: Fix): number {
  return Math.max(fix.line, ...(fix.also ?? []).map((e) => e.line));
}

function asmReturnFixAt(lines: readonly string[], line: number, value: number): Fix | undefined {
  const first = lines[line - 1] ?? '';
  const head = /\b(?:asm|__asm__|__asm)\s*(?:(?:volatile|__volatile__|goto|inline)\s*)*\(/.exec(first);
  if (!head) return undefined;
  // Walk the statement's text: its string literals, its top-level colons and the parenthesis that closes it.
  type Pos = { line: number; col: number };
  let depth = 0;
  let inStr = false;
  let esc = false;
  let tmplStart: Pos | undefined;
  let template = '';
  const colons: Pos[] = [];
  let close: Pos | undefined;
  for (let l = line; l <= lines.length && !close; l++) {
    const t = lines[l - 1] ?? '';
    for (let c = l === line ? head.index + head[0].length - 1 : 0; c < t.length; c++) {
      const ch = t[c]!;
      if (inStr) {
        // The template as the assembler reads it: the escapes \n and \t are a newline and a tab (so "\texit" holds `exit`).
        let text = '';
        if (esc) {
          esc = false;
          text = ch === 'n' ? '\n' : ch === 't' ? '\t' : ch;
        } else if (ch === '\\') esc = true;
        else if (ch === '"') inStr = false;
        else text = ch;
        if (colons.length === 0) template += text;
        continue;
      }
      if (ch === '"') {
        inStr = true;
        if (!tmplStart && colons.length === 0) tmplStart = { line: l, col: c + 1 };
      } else if (ch === '(') depth++;
      else if (ch === ')') {
        if (--depth === 0) {
          close = { line: l, col: c };
          break;
        }
      } else if (ch === ':' && depth === 1) colons.push({ line: l, col: c });
    }
  }
  if (!close || !tmplStart || !/\bexit\b/.test(template)) return undefined;
  const sep = template.includes('\n') ? '\\n\\t' : template.includes(';') ? '; ' : '\\n\\t';
  const edits: { at: Pos; text: string }[] = [{ at: tmplStart, text: `r0 = ${value}${sep}` }];
  const clobbers = colons.length >= 3 ? clobberText(lines, colons[2]!, close) : '';
  if (!/"r0"/.test(clobbers)) {
    const add = colons.length >= 3 ? (clobbers.trim() ? ', "r0"' : ' "r0"') : `${' :'.repeat(3 - colons.length)} "r0"`;
    edits.push({ at: close, text: add });
  }
  // Apply right to left within a line; one replaced line per line touched.
  const changed = new Map<number, string>();
  for (const e of edits.sort((a, b) => b.at.line - a.at.line || b.at.col - a.at.col)) {
    const t = changed.get(e.at.line) ?? lines[e.at.line - 1] ?? '';
    changed.set(e.at.line, t.slice(0, e.at.col) + e.text + t.slice(e.at.col));
  }
  const [main, ...rest] = [...changed.entries()].sort((a, b) => a[0] - b[0]).map(([l, t]) => ({ line: l, insert: t, replace: true }));
  return rest.length ? { ...main!, also: rest } : main;
}

function clobberText(lines: readonly string[], from: { line: number; col: number }, to: { line: number; col: number }): string {
  if (from.line === to.line) return (lines[from.line - 1] ?? '').slice(from.col + 1, to.col);
  const parts = [(lines[from.line - 1] ?? '').slice(from.col + 1), ...lines.slice(from.line, to.line - 1), (lines[to.line - 1] ?? '').slice(0, to.col)];
  return parts.join('\n');
}

/** `if (!p) return …;` for each map lookup result used on the line (or else every one made before it in the function). */
function nullGuardStmts(lines: readonly string[], fnStart: number, line: number, ret: string, from = 'bpf_map_lookup_elem'): string[] {
  const text = lines[line - 1] ?? '';
  const looked: string[] = [];
  const call = callAssignment(from);
  for (let l = fnStart; l < line; l++) {
    const m = call.exec(lines[l - 1] ?? '');
    if (m && !looked.includes(m[1]!)) looked.push(m[1]!);
  }
  const cands = [...derefNames(text), ...identifiers(text)].filter((n) => looked.includes(n));
  return [...new Set(cands.length ? cands : looked)].map((n) => `if (!${n})\n\treturn ${ret};`);
}

/** `NAME = FN(`, a cast between them allowed (`sk = (struct bpf_sock *)bpf_skc_lookup_tcp(`): group 1 is NAME. */
function callAssignment(fn: string): RegExp {
  return new RegExp(`(\\w+)\\s*=\\s*(?:\\([^()]*\\)\\s*)?${fn}\\s*\\(`);
}

/** The variable the call on `line` to `fn` was assigned to. */
function assignedFrom(lines: readonly string[], line: number | undefined, fn: string): string | undefined {
  return line !== undefined ? callAssignment(fn).exec(lines[line - 1] ?? '')?.[1] : undefined;
}

/** The statement that gives back `name`'s reference: `release(name)` (a ring buffer record: and flags 0). */
function releaseCall(release: string, name: string): string {
  return release === 'bpf_ringbuf_discard' || release === 'bpf_ringbuf_submit' ? `${release}(${name}, 0);` : `${release}(${name});`;
}

/**
 * A return that leaves with a reference held: the release first. A `return` line becomes a block (it may be the body of
 * an if without braces); any other line gets the release inserted before it.
 */
function releaseBeforeExit(f: Facts, lines: readonly string[], line: number, fnStart: number, causeLine: number | undefined): Fix[] {
  if (f.acquire === undefined || f.release === undefined) return [];
  const name = assignedFrom(lines, causeLine, f.acquire);
  if (!name) return [];
  const text = lines[line - 1] ?? '';
  const ind = indentOf(text);
  // Before a tail call a ring buffer record is one the program meant to send: submit it.
  const rel = releaseCall(f.helper === 'bpf_tail_call' && f.release === 'bpf_ringbuf_discard' ? 'bpf_ringbuf_submit' : f.release, name);
  if (/^\s*return\b/.test(text)) return [{ line, insert: `${ind}{\n${ind}\t${rel}\n${ind}\t${text.trim()}\n${ind}}`, replace: true }];
  const out: Fix[] = [];
  // A tail call with the release written after it (where it runs only when the tail call fails): the release moved before it.
  if (f.helper === 'bpf_tail_call') {
    const later = new RegExp(`^\\s*(?:bpf_ringbuf_submit|bpf_ringbuf_discard|bpf_sk_release|bpf_ct_release)\\s*\\(\\s*${name}\\b`);
    for (let l = line + 1; l <= Math.min(lines.length, line + 12); l++) {
      if (!later.test(lines[l - 1] ?? '')) continue;
      out.push({ line, insert: ind + (lines[l - 1] ?? '').trim(), also: [{ line: l, insert: '', replace: true }] });
      break;
    }
  }
  for (const l of insertionLines(lines, line, fnStart + 1)) out.push({ line: l, insert: indentOf(lines[l - 1] ?? '') + rel });
  return out;
}

/** A use after the release at `causeLine`: the release moved after the use (after this line, or after the last line that names the pointer). */
function releaseAfterUse(lines: readonly string[], line: number, fnEnd: number, causeLine: number | undefined): Fix[] {
  if (causeLine === undefined || causeLine >= line) return [];
  const rel = lines[causeLine - 1] ?? '';
  const name = /\(\s*(\w+)/.exec(rel)?.[1];
  if (!name) return [];
  let last = line;
  for (let l = line + 1; l < fnEnd; l++) {
    const t = lines[l - 1] ?? '';
    if (/^\s*return\b/.test(t)) break;
    if (new RegExp(`\\b${name}\\b`).test(t)) last = l;
  }
  const ind = indentOf(lines[line - 1] ?? '');
  return [...new Set([line, last])].map((after) => ({ line: after + 1, insert: ind + rel.trim(), also: [{ line: causeLine, insert: '', replace: true }] }));
}

/** The reservation on `causeLine` made large enough for an access ending at byte `need` (its size written as a number). */
function largerReservation(lines: readonly string[], causeLine: number | undefined, need: number): Fix[] {
  if (causeLine === undefined) return [];
  const text = lines[causeLine - 1] ?? '';
  const m = /(bpf_ringbuf_reserve\s*\([^,]+,\s*)(\d+)(\s*,)/.exec(text);
  if (!m || Number(m[2]) >= need) return [];
  return [need, Math.ceil(need / 8) * 8].filter((v, i, a) => a.indexOf(v) === i).map((v) => ({ line: causeLine, insert: text.replace(m[0], `${m[1]}${v}${m[3]}`), replace: true }));
}

/** For each `name[index]` on `line` whose name is an array declared in the function (`T name[N]`): `index >= N`, the test that keeps it inside. */
function localArrayGuards(lines: readonly string[], fnStart: number, line: number): string[] {
  const out: string[] = [];
  const re = /\b([A-Za-z_]\w*)\s*\[([^\[\]]+)\]/g;
  const text = lines[line - 1] ?? '';
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const [, name, index] = m;
    for (let l = line - 1; l >= fnStart; l--) {
      const d = new RegExp(`\\b${name}\\s*\\[\\s*(\\d+)\\s*\\]`).exec(lines[l - 1] ?? '');
      if (!d) continue;
      const idx = index!.trim();
      out.push(`${/^[\w.>-]+$/.test(idx) ? idx : `(${idx})`} >= ${d[1]}`);
      break;
    }
  }
  return [...new Set(out)];
}

/** The arguments of the call to `fn` on `text`, split at its top-level commas (`a, f(b, c), d` is three); undefined when the line does not call it. */
function callArgs(text: string, fn: string): string[] | undefined {
  const m = new RegExp(`\\b${fn}\\s*\\(`).exec(text);
  if (!m) return undefined;
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text.slice(m.index + m[0].length)) {
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') {
      if (depth === 0) break;
      depth--;
    }
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/** The map the call on `text` passes first (`&name`), declared libbpf-style with another `__uint(type, ...)`: one candidate per type the helper takes. */
function mapTypeChanges(lines: readonly string[], text: string, types: readonly string[]): Fix[] {
  const name = /\(\s*&\s*(\w+)/.exec(text)?.[1];
  if (!name || types.length === 0) return [];
  const decl = lines.findIndex((d) => new RegExp(`^\\s*\\}\\s*${name}\\s+SEC\\(\\s*"\\.maps"\\s*\\)`).test(d));
  for (let l = decl - 1; l >= 0 && l >= decl - 12; l--) {
    const t = lines[l]!;
    const m = /(__uint\s*\(\s*type\s*,\s*)(BPF_MAP_TYPE_\w+)/.exec(t);
    if (m) return types.map((ty) => ({ line: l + 1, insert: t.replace(m[0], `${m[1]}BPF_MAP_TYPE_${ty.toUpperCase()}`), replace: true }));
    if (/^\s*struct\s*\{/.test(t)) break;
  }
  return [];
}

/** A const global the line writes to: its declaration without `const` (a .data/.bss global the program may write). */
function dropConst(lines: readonly string[], line: number): Fix[] {
  const out: Fix[] = [];
  for (const n of identifiers(lines[line - 1] ?? '')) {
    lines.forEach((d, i) => {
      // A file-scope declaration: no indentation, `const` before the name (`const volatile` included).
      if (!new RegExp(`^(?:static\\s+)?(?:volatile\\s+)?const\\b[^;()]*\\b${n}\\s*(?:=|;|\\[)`).test(d)) return;
      out.push({ line: i + 1, insert: d.replace(/\bconst\s+/, ''), replace: true });
    });
  }
  return out;
}

/** Give each variable named on the line a value where it is declared without one (`= 0`, or `= {}` for arrays and structs). */
function initialiseDeclarations(lines: readonly string[], fnStart: number, line: number, names: readonly string[]): Fix[] {
  const out: Fix[] = [];
  for (const n of names) {
    for (let l = line - 1; l >= fnStart; l--) {
      const d = lines[l - 1] ?? '';
      const m = new RegExp(`^(\\s*[\\w\\s*]+?\\b${n})(\\s*\\[[^\\]]*\\])?\\s*;`).exec(d);
      if (m) {
        const agg = m[2] !== undefined || /\bstruct\b/.test(m[1]!);
        out.push({ line: l, insert: `${m[1]}${m[2] ?? ''} = ${agg ? '{}' : '0'};${d.slice(m[0].length)}`, replace: true });
        break;
      }
    }
  }
  return out;
}

/** `*(T *)(E) = V;` or `x = *(T *)(E);` at an offset not aligned to sizeof(T): copy the bytes with __builtin_memcpy instead. */
function unalignedCopies(text: string, line: number): Fix[] {
  const out: Fix[] = [];
  const ind = indentOf(text);
  const CAST = String.raw`\*\s*\(\s*([\w\s]+?)\s*\*\s*\)\s*(\(.+?\)|[\w.>\-]+)`;
  const store = new RegExp(String.raw`^\s*${CAST}\s*=\s*(.+?);\s*$`).exec(text);
  if (store) {
    const [, ty, at, val] = store;
    if (/^[\w.\->[\]]+$/.test(val!.trim())) out.push({ line, insert: `${ind}__builtin_memcpy(${at}, &${val!.trim()}, sizeof(${ty!.trim()}));`, replace: true });
    out.push({ line, insert: `${ind}{\n${ind}\t${ty!.trim()} tmp = ${val!.trim()};\n\n${ind}\t__builtin_memcpy(${at}, &tmp, sizeof(tmp));\n${ind}}`, replace: true });
  }
  const load = new RegExp(String.raw`^(\s*)([\w\s*]*?)(\w+)\s*=\s*${CAST}\s*;\s*$`).exec(text);
  if (load) {
    const [, , decl, x, , at] = load;
    out.push({ line, insert: `${ind}${decl ? `${decl}${x};\n${ind}` : ''}__builtin_memcpy(&${x}, ${at}, sizeof(${x}));`, replace: true });
  }
  return out;
}

/** Strip the casts in front of an expression: `(unsigned char *)(long)*addr` gives `*addr`. */
function uncast(expr: string): string {
  return expr.trim().replace(/^(\(\s*(?:const\s+|volatile\s+|unsigned\s+|signed\s+|struct\s+)*\w+[\s*]*\)\s*)+/, '').trim();
}

const ELEM_BYTES: Record<string, number> = { char: 1, __u8: 1, u8: 1, __s8: 1, short: 2, __u16: 2, __be16: 2, int: 4, __u32: 4, __be32: 4, u32: 4, long: 8, __u64: 8, u64: 8 };

/**
 * A stack array too big for the call chain, moved into the value of a one-element per-CPU array map:
 * the map declared before the function, the array's declaration replaced by a lookup (never NULL for
 * key 0 of an array, but the verifier wants the test).
 */
function moveToPerCpuMap(lines: readonly string[]): Fix[] {
  const arrays: { line: number; name: string; elem: string; quals: string; n: number; zero: boolean; bytes: number }[] = [];
  lines.forEach((t, i) => {
    const m = /^\s+((?:volatile\s+|const\s+)*)((?:unsigned\s+|struct\s+)?\w+)\s+(\w+)\s*\[\s*(\d+)\s*\]\s*(=\s*\{\s*0?\s*\}\s*)?;\s*$/.exec(t);
    if (!m || m[2] === 'return') return;
    const n = Number(m[4]);
    arrays.push({ line: i + 1, quals: m[1]!, elem: m[2]!, name: m[3]!, n, zero: m[5] !== undefined, bytes: n * (ELEM_BYTES[m[2]!.replace(/^unsigned\s+/, '')] ?? 8) });
  });
  arrays.sort((a, b) => b.bytes - a.bytes);
  const out: Fix[] = [];
  for (const a of arrays.slice(0, 4)) {
    const fn = functionAround(lines, a.line);
    // The map goes before the function and whatever precedes its header (SEC(...), attributes on their own line).
    let at = fn.start;
    while (at > 1 && /^\s*(SEC\s*\(|__attribute__|static\b[^(]*$)/.test(lines[at - 2] ?? '')) at--;
    const head = lines.slice(Math.max(0, at - 1), fn.start).join(' ');
    const ret = /\bvoid\s+\w+\s*\(/.test(head) ? 'return;' : /SEC\s*\(/.test(head) ? 'return XDP_ABORTED;' : 'return 0;';
    const ind = indentOf(lines[a.line - 1] ?? '');
    const map = `${a.name}_scratch`;
    const decl = [
      `${ind}__u32 ${a.name}_key = 0;`,
      `${ind}${a.quals}${a.elem} *${a.name} = bpf_map_lookup_elem(&${map}, &${a.name}_key);`,
      '',
      `${ind}if (!${a.name})`,
      `${ind}\t${ret}`,
      ...(a.zero ? [`${ind}__builtin_memset(${a.name}, 0, ${a.n} * sizeof(${a.elem}));`] : []),
    ].join('\n');
    const mapDecl = [
      `/* ${a.name} lives in a per-CPU map value: ${a.n} * sizeof(${a.elem}) bytes are too many for the stack. */`,
      'struct {',
      '\t__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);',
      '\t__type(key, __u32);',
      `\t__type(value, ${a.elem}[${a.n}]);`,
      '\t__uint(max_entries, 1);',
      `} ${map} SEC(".maps");`,
      '',
    ].join('\n');
    out.push({ line: a.line, insert: decl, replace: true, also: [{ line: at, insert: mapDecl }] });
  }
  return out;
}

/** For a while loop at `head` whose counter VARS is updated in its body, each `continue;` in the body (not in an inner loop) done after that update. */
function continueUpdates(lines: readonly string[], head: number, vars: readonly string[]): Fix[] {
  let depth = 0;
  let end = head;
  for (let l = head; l <= lines.length; l++) {
    for (const ch of lines[l - 1] ?? '') depth += ch === '{' ? 1 : ch === '}' ? -1 : 0;
    end = l;
    if (l > head && depth <= 0) break;
  }
  const body = lines.slice(head, end - 1);
  const updates = body.map((t) => t.trim()).filter((t) => vars.some((v) => new RegExp(`^(${v}\\s*(\\+\\+|--|[-+*|&^]?=(?!=)[^;]*)|(\\+\\+|--)${v})\\s*;$`).test(t)));
  if (updates.length === 0 || body.some((t) => /\b(for|while|do)\b/.test(t))) return [];
  const conts = body.map((t, i) => ({ t, line: head + 1 + i })).filter((x) => /^\s*continue\s*;\s*$/.test(x.t));
  if (conts.length === 0) return [];
  const edits = conts.map((c) => {
    const ind = indentOf(c.t);
    return { line: c.line, insert: `${ind}{\n${updates.map((u) => `${ind}\t${u}`).join('\n')}\n${ind}\tcontinue;\n${ind}}`, replace: true };
  });
  return [{ ...edits[0]!, ...(edits.length > 1 ? { also: edits.slice(1) } : {}) }];
}

export function fixCandidates(f: Facts, lines: readonly string[], line: number, names: Names, causeLine?: number, callerLine?: number, callerNames?: Names): Fix[] {
  const fn = functionAround(lines, line);
  const text = lines[line - 1] ?? '';
  const at = insertionLines(lines, line, fn.start + 1);
  const out: Fix[] = [];
  const guard = (cond: string, action = names.action) => `if (${cond})\n\treturn ${action};`;
  const insertAll = (stmts: string[], where = at) => {
    for (const l of where) for (const s of stmts) out.push({ line: l, insert: block(indentOf(lines[l - 1] ?? ''), s) });
  };
  const r = f.reg;
  switch (f.kind) {
    case 'pkt-access': {
      if (!names.dataEndVar && !new RegExp(`\\b${names.ctx}\\b`).test(lines.slice(fn.start - 1, fn.end).join('\n')) && callerLine && callerNames) {
        out.push(...callSiteGuards(f, lines, callerLine, callerNames));
        break;
      }
      const derefs = derefNames(text).filter((n) => n !== names.ctx);
      const stmts: string[] = [];
      const known = r && r.umax === '0' && r.smin === '0' && r.type === 'pkt';
      const rest = lines.slice(line - 1, fn.end);
      const ends = constIndexEnds(rest);
      const onLine = [...derefs, ...identifiers(text).filter((n) => !derefs.includes(n) && n !== names.ctx && n !== names.dataVar && n !== names.dataEndVar)];
      for (const n of onLine) {
        stmts.push(guard(`(void *)(${n} + ${ends.get(n) ?? 1}) > ${names.dataEnd}`));
        if (f.size !== undefined) stmts.push(guard(`(void *)${n} + ${(f.insnOff ?? 0) + f.size} > ${names.dataEnd}`));
      }
      // When the check that was missing covered several headers, one guard for every pointer the rest of the function reads through.
      const later = [...new Set(rest.flatMap((t) => derefNames(t)))].filter((n) => n !== names.ctx && assignedBefore(lines, n, line, fn.start));
      if (later.length > 1) stmts.push(guard(later.map((n) => `(void *)(${n} + ${ends.get(n) ?? 1}) > ${names.dataEnd}`).join(' ||\n\t    ')));
      // A packet can never be longer than 0xffff bytes past data: a larger need is a loop's runaway pointer, not a missing check.
      const need = known && f.size !== undefined ? r.off + (f.insnOff ?? 0) + f.size : undefined;
      if (need !== undefined && need <= 0xffff) stmts.push(guard(`${names.data} + ${need} > ${names.dataEnd}`));
      // A size written on the line (memcpy(buf, p, 12)) is the number of bytes read through the pointer.
      for (const k of new Set((text.match(/\b\d+\b/g) ?? []).map(Number).filter((k) => k > 0 && k <= 1500)))
        for (const n of onLine) stmts.push(guard(`(void *)${n} + ${k} > ${names.dataEnd}`));
      if (f.helper) for (const n of identifiers(text)) if (n !== names.ctx && !derefs.includes(n)) stmts.push(guard(`(void *)${n} + ${f.size ?? 1} > ${names.dataEnd}`));
      stmts.splice(0, stmts.length, ...new Set(stmts));
      insertAll(stmts);
      break;
    }
    case 'pkt-unbounded-offset':
      insertAll(identifiers(text).filter((n) => n !== names.dataVar && n !== names.dataEndVar && n !== names.ctx).map((n) => guard(`${n} < 0 || ${n} > 1500`)));
      break;
    case 'pkt-end-arith': {
      const de = (names.dataEndVar ?? 'data_end').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      // `data_end - N < p` (or `p > data_end - N`) becomes `p + N > data_end`: the same test, measured from the start.
      const DE = names.dataEndVar ?? 'data_end';
      const a = new RegExp(`\\b${de}\\s*-\\s*(.+?)\\s*<\\s*(.+?)(\\s*\\)\\s*\\{?\\s*)$`).exec(text);
      if (a) out.push({ line, insert: text.replace(a[0], `${a[2]!.trim()} + ${a[1]!.trim()} > ${DE}${a[3]}`), replace: true });
      const b = new RegExp(`\\(\\s*(.+?)\\s*>\\s*${de}\\s*-\\s*(.+?)(\\s*\\)\\s*\\{?\\s*)$`).exec(text);
      if (b) out.push({ line, insert: text.replace(b[0], `(${b[1]!.trim()} + ${b[2]!.trim()} > ${DE}${b[3]}`), replace: true });
      break;
    }
    case 'stale-pkt-pointer': {
      const reload: string[] = [];
      if (names.dataVar) reload.push(`${names.dataVar} = (void *)(long)${names.ctx}->data;`);
      if (names.dataEndVar) reload.push(`${names.dataEndVar} = (void *)(long)${names.ctx}->data_end;`);
      for (const n of derefNames(text)) {
        const expr = assignmentOf(lines, n, causeLine ?? line);
        const stmts = [...reload];
        if (expr && expr !== n && n !== names.dataVar) stmts.push(`${n} = ${expr};`);
        stmts.push(guard(`(void *)(${n} + 1) > ${names.dataEnd}`));
        insertAll([stmts.join('\n')]);
      }
      break;
    }
    case 'null-deref':
      insertAll(nullGuardStmts(lines, fn.start, line, 'XDP_PASS', f.acquire));
      break;
    case 'unreleased-ref':
      out.push(...releaseBeforeExit(f, lines, line, fn.start, causeLine));
      break;
    case 'released-ref':
      out.push(...releaseAfterUse(lines, line, fn.end, causeLine));
      break;
    case 'mem-access':
      if (f.size !== undefined) out.push(...largerReservation(lines, causeLine, (r?.off ?? 0) + (f.insnOff ?? 0) + f.size));
      break;
    case 'map-readonly':
      out.push(...dropConst(lines, line));
      break;
    case 'pointer-arith':
      // Arithmetic on a lookup result before its NULL test (`&v->field`): test it first.
      if (r && /_or_null$/.test(r.type)) insertAll(nullGuardStmts(lines, fn.start, line, 'XDP_PASS'));
      // A packet pointer turned into a number (`(long)p & 3`): the number wanted is its offset from data.
      if (r && (r.type === 'pkt' || r.type === 'pkt_meta')) {
        const cast = /\(\s*((?:unsigned\s+)?long|__u64|__u32|__s64|int|unsigned int|unsigned)\s*\)\s*(\w+)/g;
        if (cast.test(text)) out.push({ line, insert: text.replace(cast, (_m, ty: string, p: string) => `((${ty})((void *)${p} - ${names.data}))`), replace: true });
      }
      break;
    case 'stack-access':
      if (f.size !== undefined && r && (r.off + (f.insnOff ?? 0)) % f.size !== 0) out.push(...unalignedCopies(text, line));
      // A local array indexed by an unbounded value: the index tested against the array's length first.
      if (r && r.varOff.mask !== '0x0') insertAll(localArrayGuards(lines, fn.start, line).map((g) => guard(g)));
      break;
    case 'scalar-deref': {
      // A pointer read back from memory (a map value) is only a number: keep an offset from data there instead.
      if (f.origin !== 'load' || causeLine === undefined) break;
      const def = lines[causeLine - 1] ?? '';
      const m = /^(\s*)([^=]*?\b(\w+))\s*=\s*([^;]+);\s*$/.exec(def);
      if (!m) break;
      const [, ind, lhs, n, rhs] = m;
      for (const mask of ['0x3fff', '0xff'])
        out.push({
          line: causeLine,
          insert: `${ind}${lhs} = ${names.data} + (${uncast(rhs!)} & ${mask});\n${block(ind!, guard(`(void *)(${n} + 1) > ${names.dataEnd}`))}`,
          replace: true,
        });
      break;
    }
    case 'stack-size':
      out.push(...moveToPerCpuMap(lines));
      break;
    case 'map-value-access': {
      const n = f.valueSize !== undefined && f.size ? Math.floor(f.valueSize / f.size) : undefined;
      if (n) for (const i of indexNames(text)) insertAll([guard(`${i} >= ${n}`, 'XDP_PASS'), guard(`${i} < 0 || ${i} >= ${n}`, 'XDP_PASS')]);
      break;
    }
    case 'helper-arg': {
      // A value passed where the helper wants a pointer to it: pass its address (never where it wants a number).
      const call = /\w+\s*\((.*)\)/.exec(text);
      // A length out of the helper's range: tested against both ends before the call.
      if (f.sizeIssue !== undefined && f.helper !== undefined && f.arg !== undefined) {
        const arg = callArgs(text, f.helper)?.[f.arg - 1]?.trim();
        if (arg && /^\w+$/.test(arg)) {
          const caps = f.sizeCap !== undefined ? [f.sizeCap] : [64, 256, 1500];
          // The upper end alone first (an unsigned length cannot be negative); a signed one needs the lower end too.
          const tests = f.wanted === 'ARG_CONST_SIZE' ? caps.map((c) => `${arg} < 1 || ${arg} > ${c}`) : caps.flatMap((c) => [`${arg} > ${c}`, `${arg} < 0 || ${arg} > ${c}`]);
          insertAll(tests.map((t) => guard(t)));
        }
        break;
      }
      // A map of a type the helper does not take: the map declared with a type it does.
      if (f.mapIncompatible) {
        out.push(...mapTypeChanges(lines, text, f.mapTypes ?? []));
        break;
      }
      if (call && !f.pktDenied && !f.wanted?.startsWith('ARG_CONST') && f.wanted !== 'ARG_ANYTHING') for (const n of identifiers(call[1]!)) {
        const re = new RegExp(`([(,]\\s*)${n}\\b`);
        if (re.test(text)) out.push({ line, insert: text.replace(re, `$1&${n}`), replace: true });
      }
      break;
    }
    case 'ctx-access':
      if (/__u64|\blong long\b|\bu64\b/.test(text)) out.push({ line, insert: text.replace(/__u64/g, '__u32').replace(/\blong long\b/g, 'int').replace(/\bu64\b/g, 'u32'), replace: true });
      break;
    case 'ctx-write':
      out.push({ line, insert: `${indentOf(text)}/* ${text.trim().replace(/\*\//g, '* /')}  -- struct xdp_md is read-only */`, replace: true });
      break;
    case 'uninit-stack': {
      const amp = /&\s*(\w+)/.exec(text)?.[1];
      out.push(...initialiseDeclarations(lines, fn.start, line, [...new Set([...(amp ? [amp] : []), ...identifiers(text)])]));
      break;
    }
    case 'uninit-reg': {
      // An `exit` written in inline asm with nothing in r0: set r0 in the asm (and tell the compiler it does).
      const asmFix = f.regno === 0 ? asmReturnFix(lines, line, XDP_ACTION_VALUES[names.action === 'XDP_DROP' ? 'XDP_PASS' : names.action] ?? 2) : undefined;
      if (asmFix) out.push(asmFix);
      // A variable read before any path set it: give it a value where it is declared.
      out.push(...initialiseDeclarations(lines, fn.start, line, identifiers(text)));
      if (f.regno === 0) {
        const endText = lines[fn.end - 1] ?? '';
        if (/^}/.test(endText)) out.push({ line: fn.end, insert: `\treturn ${names.action === 'XDP_DROP' ? 'XDP_PASS' : names.action};` });
      }
      break;
    }
    case 'loop': {
      for (let l = line; l >= fn.start; l--) {
        const t = lines[l - 1] ?? '';
        const m = /\b(for|while)\s*\((.*)\)/.exec(t);
        if (!m) continue;
        const cond = m[1] === 'for' ? (m[2]!.split(';')[1] ?? '') : m[2]!;
        const vars = identifiers(cond).filter((n) => n !== names.dataEndVar && n !== names.dataVar);
        // A bound the loop depends on that nothing caps: cap it.
        if (!f.infinite) insertAll(vars.map((v) => guard(`${v} > 64`)), insertionLines(lines, l, fn.start + 1));
        // A `continue` that skips the update of the loop's counter: do the update before continuing.
        if (m[1] === 'while') out.push(...continueUpdates(lines, l, vars));
        // A loop some path through which changes nothing (or that runs too long): count the trips and stop after 64,
        // so every iteration is a new state to the verifier.
        const iter = lines.some((x) => /\biter\b/.test(x)) ? 'trips' : 'iter';
        for (const cap of [16, 64]) {
        const ind = indentOf(t);
        const header =
          m[1] === 'while'
            ? t.replace(/\bwhile\s*\((.*)\)/, `while ((${m[2]!.trim()}) && ${iter}++ < ${cap})`)
            : t.replace(/\bfor\s*\((.*)\)/, () => {
                const [init, c, step] = m[2]!.split(';');
                return `for (${init!.trim()}; ${c?.trim() ? `(${c.trim()}) && ` : ''}${iter}++ < ${cap};${step ?? ''})`;
              });
        if (header !== t) out.push({ line: l, insert: `${ind}__u32 ${iter} = 0;\n${header}`, replace: true });
        }
        break;
      }
      break;
    }
    default:
      break;
  }
  return out;
}
