/**
 * The engine's build pipeline: each stage reports honestly whether it ran,
 * failed or has not landed, and verifier errors land on the C line of the
 * failing instruction.
 */
import { describe, expect, it } from 'vitest';
import { bytesToHex, encodeProgram, insn, type ProgramSpec } from '../../src/isa';
import { createEngine, type Toolchain } from '../../src/engine';

// r0 = 2 (XDP_PASS); exit — written by hand so this test needs no compiler.
const PASS = bytesToHex(encodeProgram([insn(0xb7, 0, 0, 0, 2), insn(0x95)]));
const spec = (over: Partial<ProgramSpec> = {}): ProgramSpec => ({ prog_type: 'xdp', insns: PASS, line_info: [{ insn: 0, line: 3, col: 2 }, { insn: 1, line: 4, col: 2 }], ...over });

describe('engine build', () => {
  it('says which stage is missing instead of inventing a result', () => {
    const r = createEngine({}).build('int x;');
    expect(r.compile).toEqual({ status: 'unavailable', message: 'compiler not available yet' });
    expect(r.verify.status).toBe('unavailable');
    expect(r.diagnostics).toEqual([]);
  });

  it('numbers builds so stale results can be dropped', () => {
    const e = createEngine({});
    expect(e.build('a').seq).toBe(1);
    expect(e.build('b').seq).toBe(2);
  });

  it('passes compiler diagnostics through and skips later stages when there is no program', () => {
    const tc: Toolchain = {
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
    const tc: Toolchain = { compile: () => ({ spec: spec({ insns: 'b70000' }), diagnostics: [] }) };
    const r = createEngine(tc).build('src');
    expect(r.compile.status).toBe('failed');
    expect(r.diagnostics[0].message).toMatch(/^compiler produced an invalid program: spec.insns/);
  });
});
