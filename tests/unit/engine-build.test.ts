/**
 * The engine's build pipeline: each stage reports honestly whether it ran,
 * failed or was skipped, and verifier errors land on the C line of the
 * failing instruction. Stand-ins replace one stage of the real toolchain.
 */
import { describe, expect, it } from 'vitest';
import { bytesToHex, encodeProgram, insn, type ProgramSpec } from '../../src/isa';
import { createEngine, landedToolchain, type Toolchain } from '../../src/engine';
import { compile } from '../../src/cc';
import { parseSpec } from '../../src/isa';
import { verify } from '../../src/verifier';
import { EXAMPLES } from '../../src/examples';

// r0 = 2 (XDP_PASS); exit — written by hand so this test needs no compiler.
const PASS = bytesToHex(encodeProgram([insn(0xb7, 0, 0, 0, 2), insn(0x95)]));
const spec = (over: Partial<ProgramSpec> = {}): ProgramSpec => ({ prog_type: 'xdp', insns: PASS, line_info: [{ insn: 0, line: 3, col: 2 }, { insn: 1, line: 4, col: 2 }], ...over });

describe('engine build', () => {
  it('numbers builds so stale results can be dropped', () => {
    const e = createEngine(landedToolchain);
    expect(e.build('a').seq).toBe(1);
    expect(e.build('b').seq).toBe(2);
  });

  it('passes compiler diagnostics through and skips later stages when there is no program', () => {
    const tc: Toolchain = {
      ...landedToolchain,
      compile: () => ({ spec: null, diagnostics: [{ stage: 'compiler', severity: 'error', message: "expected ';'", line: 2, col: 5, endLine: 2, endCol: 6 }] }),
      verify: () => { throw new Error('must not run'); },
    };
    const r = createEngine(tc).build('x');
    expect(r.compile.status).toBe('failed');
    expect(r.verify).toEqual({ status: 'skipped', message: 'compilation failed' });
    expect(r.diagnostics.map((d) => [d.line, d.message])).toEqual([[2, "expected ';'"]]);
  });

  it('interleaves C lines with instructions, objdump -S style', () => {
    const src = 'a\nb\nreturn_pass;\nexit_here;\n';
    const tc: Toolchain = {
      ...landedToolchain,
      compile: () => ({ spec: spec(), diagnostics: [] }),
      disassemble: (insns) => insns.map((i) => (i.code === 0x95 ? 'exit' : `r0 = ${i.imm}`)),
    };
    const r = createEngine(tc).build(src);
    expect(r.disasm.status).toBe('ok');
    if (r.disasm.status !== 'ok') return;
    expect(r.disasm.lines.map((l) => (l.kind === 'source' ? `; ${l.text}` : l.kind === 'insn' ? `${l.pc}: ${l.text}` : l.text))).toEqual([
      '; return_pass;', '0: r0 = 2', '; exit_here;', '1: exit',
    ]);
    expect(r.disasm.lines[1]).toMatchObject({ kind: 'insn', hex: 'b700000002000000', line: 3 });
  });

  it('puts a verifier rejection on the C line of the failing instruction', () => {
    const tc: Toolchain = {
      ...landedToolchain,
      compile: () => ({ spec: spec(), diagnostics: [] }),
      verify: () => ({ accepted: false, log: '0: (b7) r0 = 2\n1: (95) exit\nR0 !read_ok', error: 'R0 !read_ok', errorPc: 1, states: [] }),
    };
    const e = createEngine(tc);
    const r = e.build('src');
    expect(r.verify).toMatchObject({ status: 'ok', accepted: false, errorPc: 1 });
    expect(r.diagnostics).toMatchObject([{ stage: 'verifier', line: 4, message: 'R0 !read_ok' }]);
    expect(e.session.attachable()).toBe(false);
  });

  it('reports a compiler that emits an undecodable program as an engine error', () => {
    const tc: Toolchain = { ...landedToolchain, compile: () => ({ spec: spec({ insns: 'b70000' }), diagnostics: [] }) };
    const r = createEngine(tc).build('src');
    expect(r.compile.status).toBe('failed');
    expect(r.diagnostics[0]!.message).toMatch(/^compiler produced an invalid program: spec.insns/);
  });

  // The app asks the verifier only for the first visit's state before each
  // instruction, as text: it must be exactly what the full per-visit views
  // say, and the verdict and log must not change with what is recorded.
  const rejected = EXAMPLES.find((x) => x.id === 'xdp1')!.source.replace('if (value)', 'if (value || 1)');
  it.each([
    ['xdp1', EXAMPLES.find((x) => x.id === 'xdp1')!.source],
    ['xdp2', EXAMPLES.find((x) => x.id === 'xdp2')!.source],
    ['xdp1 without its null check', rejected],
  ])('records the same first-visit states as the full views, cheaply (%s)', (_name, source) => {
    const c = compile(source, { file: 'prog.c' });
    const parsed = parseSpec(c.spec!);
    if ('error' in parsed) throw new Error(parsed.error);
    const full = verify(parsed, { logLevel: 2 });
    const first = verify(parsed, { logLevel: 2, states: 'first' });
    expect(first.accepted).toBe(full.accepted);
    expect(full.accepted).toBe(source !== rejected);
    expect(first.log).toBe(full.log);
    expect(first.error).toBe(full.error);
    expect(first.states).toEqual([]);
    const fromFull = full.states.map((s) => ({
      idx: s.idx,
      frame: s.visits[0]!.before.frame,
      regs: s.visits[0]!.before.regs.map((r) => ({ regno: r.regno, text: r.text })),
      stack: s.visits[0]!.before.stack.map((sl) => (sl.spilled ? { off: sl.off, types: sl.types, spilled: sl.spilled.text } : { off: sl.off, types: sl.types })),
    }));
    expect(first.firstStates).toEqual(fromFull);
    expect(fromFull.length).toBeGreaterThan(20);
    // And what the panes receive from the landed toolchain is that state.
    const v = landedToolchain.verify!(parsed);
    const at = fromFull.find((s) => s.stack.length > 0)!;
    expect(v.states.find((s) => s.pc === at.idx)).toEqual({
      pc: at.idx,
      regs: at.regs.map((r) => ({ name: `R${r.regno}`, text: r.text })),
      stack: at.stack.map((sl) => ({ name: `fp${sl.off}`, text: sl.spilled !== undefined ? `${sl.spilled} (spilled)` : sl.types })),
    });
  });
});
