/**
 * Fix candidates for one rejection, written with the program's own names:
 * code to insert before a line (a bounds check, a NULL test, an index check,
 * re-reading data/data_end after bpf_xdp_adjust_head, a return) or a line
 * to put in place of the offending one. The caller keeps the first that
 * verifies (explain's recheck); the order here is most specific first.
 */
import type { Facts } from './classify';
import { assignmentOf, constIndexEnds, derefNames, functionAround, identifiers, indentOf, indexNames, type Names } from './source';

export interface Fix {
  /** 1-based line: the code goes before it (or replaces it when `replace`). */
  line: number;
  /** The code, one or more lines, already indented. */
  insert: string;
  replace?: boolean;
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
    case 'null-deref': {
      const looked: string[] = [];
      for (let l = fn.start; l < line; l++) {
        const m = /(\w+)\s*=\s*bpf_map_lookup_elem\s*\(/.exec(lines[l - 1] ?? '');
        if (m && !looked.includes(m[1]!)) looked.push(m[1]!);
      }
      const cands = [...derefNames(text), ...identifiers(text)].filter((n) => looked.includes(n));
      insertAll([...new Set(cands.length ? cands : looked)].map((n) => guard(`!${n}`, 'XDP_PASS')));
      break;
    }
    case 'map-value-access': {
      const n = f.valueSize !== undefined && f.size ? Math.floor(f.valueSize / f.size) : undefined;
      if (n) for (const i of indexNames(text)) insertAll([guard(`${i} >= ${n}`, 'XDP_PASS'), guard(`${i} < 0 || ${i} >= ${n}`, 'XDP_PASS')]);
      break;
    }
    case 'helper-arg': {
      // A value passed where the helper wants a pointer to it: pass its address.
      const call = /\w+\s*\((.*)\)/.exec(text);
      if (call) for (const n of identifiers(call[1]!)) {
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
      const cands = [...new Set([...(/&\s*(\w+)/.exec(text) ? [/&\s*(\w+)/.exec(text)![1]!] : []), ...identifiers(text)])];
      for (const n of cands) {
        for (let l = line - 1; l >= fn.start; l--) {
          const d = lines[l - 1] ?? '';
          const m = new RegExp(`^(\\s*[\\w\\s*]+?\\b${n})(\\s*\\[[^\\]]*\\])?\\s*;`).exec(d);
          if (m) {
            const agg = m[2] !== undefined || /\bstruct\b/.test(m[1]!);
            out.push({ line: l, insert: `${m[1]}${m[2] ?? ''} = ${agg ? '{}' : '0'};${d.slice(m[0].length)}`, replace: true });
            break;
          }
        }
      }
      break;
    }
    case 'uninit-reg':
      if (f.regno === 0) {
        const endText = lines[fn.end - 1] ?? '';
        if (/^}/.test(endText)) out.push({ line: fn.end, insert: `\treturn ${names.action === 'XDP_DROP' ? 'XDP_PASS' : names.action};` });
      }
      break;
    case 'loop': {
      for (let l = line; l >= fn.start; l--) {
        const t = lines[l - 1] ?? '';
        const m = /\b(for|while)\s*\((.*)\)/.exec(t);
        if (!m) continue;
        const cond = m[1] === 'for' ? (m[2]!.split(';')[1] ?? '') : m[2]!;
        const vars = identifiers(cond).filter((n) => n !== names.dataEndVar && n !== names.dataVar);
        insertAll(vars.map((v) => guard(`${v} > 64`)), insertionLines(lines, l, fn.start + 1));
        break;
      }
      break;
    }
    default:
      break;
  }
  return out;
}
