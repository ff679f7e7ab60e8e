import { readFileSync } from 'node:fs';
import { compile } from '../src/cc';
import { parseSpec } from '../src/isa/spec';
import { verify } from '../src/verifier';
import { disasmInsn } from '../src/isa';
for (const f of process.argv.slice(2)) {
  const src = readFileSync(f, 'utf8');
  const r = compile(src, { file: 'prog.c' });
  if (!r.spec) { console.log(f, 'COMPILE', r.diagnostics.map(d => `${d.span.line}: ${d.message}`).join('; ')); continue; }
  const p = parseSpec(r.spec); if ('error' in p) { console.log(f, p.error); continue; }
  const v = verify(p, { logLevel: 1 });
  const li = r.spec.line_info ?? [];
  const lineOf = (pc: number) => { let best; for (const l of li) if (l.insn <= pc) best = l; return best ? `${best.line}:${best.col}` : '?'; };
  console.log(`== ${f}: ${v.accepted ? 'ACCEPT' : v.error} pc=${v.errorPc} line=${v.errorPc !== undefined ? lineOf(v.errorPc) : ''} insn=${v.errorPc !== undefined ? disasmInsn(p.insns[v.errorPc]!, {}, v.errorPc) : ''}`);
  console.log('  path lines', [...new Set((v.errorPath ?? []).map(lineOf))].join(' '));
  console.log('  regs', v.errorState?.regs.map(r => `R${r.regno}=${r.text}`).join(' '), 'stack', v.errorState?.stack.map(s => `${s.off}:${s.types}`).join(' '));
}
import { Oracle } from '../tests/differential/oracle';
if (process.env.ORACLE) {
  const o = new Oracle();
  for (const f of process.argv.slice(2)) {
    const r = compile(readFileSync(f, 'utf8'), { file: 'prog.c' });
    if (!r.spec) continue;
    const k = await o.ask({ ...(r.spec as never), log_level: 1 });
    console.log('KERNEL', f, k.accepted, k.verifier_log.split('\n').filter(Boolean).slice(-3, -1).join(' | '));
  }
  o.close();
}
