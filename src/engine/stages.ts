/**
 * The stages that have landed, adapted to the engine's Toolchain. Edit this
 * file (and only this one) when a pipeline module lands or changes its API.
 *
 * Landed: compiler (src/cc), disassembler (src/isa), examples, pcap reader
 * (src/net), verifier (src/verifier), VM (src/vm, through ./vmHook.ts),
 * driver simulator (src/sim).
 */
import type { Diagnostic as CcDiagnostic } from '../cc';
import { EXAMPLES } from '../examples';
import { disasmInsn, type Insn } from '../isa';
import { readCapture, wireRecords } from '../net';
import { DriverSim } from './simAdapter';
import { loadProgram } from './vmHook';
import type { FirstStateText } from '../verifier';
import { compileWorkspace, singleFileWorkspace, verifyProgram, type Workspace } from './pipeline';
import type { Toolchain } from './toolchain';
import type { Diagnostic, InsnState } from './types';

const FILE = 'prog.c';

/**
 * A compiler diagnostic in a workspace file keeps its span and names the file
 * (the main file's need not); one from a system header is shown on the main
 * file's line 1, naming where it came from.
 */
export function toDiagnostic(d: CcDiagnostic, ws: Workspace = singleFileWorkspace('', FILE)): Diagnostic {
  const severity = d.severity === 'note' ? 'info' : d.severity;
  const inFile = ws.files.some((f) => f.path === d.span.file) && d.span.line > 0;
  if (!inFile) {
    const where = d.span.line > 0 ? `${d.span.file}:${d.span.line}:${d.span.col}: ` : '';
    return { stage: 'compiler', severity, code: d.code, message: `${where}${d.message}`, line: 1, col: 1, endLine: 1, endCol: 1 };
  }
  const endLine = Math.max(d.span.line, d.span.endLine || d.span.line);
  const endCol = endLine === d.span.line ? Math.max(d.span.col + 1, d.span.endCol || d.span.col + 1) : d.span.endCol || 1;
  const file = d.span.file === ws.main ? {} : { file: d.span.file };
  return { stage: 'compiler', severity, code: d.code, ...file, message: d.message, line: d.span.line, col: Math.max(1, d.span.col), endLine, endCol };
}

/** llvm-objdump -d text per slot (the second lddw slot gets ''). */
function disassemble(insns: readonly Insn[]): string[] {
  const out: string[] = [];
  for (let k = 0; k < insns.length; k++) {
    const i = insns[k]!;
    const full = i.code === 0x18 && i.imm2 === undefined && insns[k + 1] ? { ...i, imm2: insns[k + 1]!.imm } : i;
    out.push(disasmInsn(full, { style: 'llvm' }, k));
    if (i.code === 0x18) out.push('');
    if (i.code === 0x18) k++;
  }
  return out;
}

/** The verifier's state before an instruction, in the kernel's words (its first visit). */
export function stateView(s: FirstStateText): InsnState {
  return {
    pc: s.idx,
    regs: s.regs.map((r) => ({ name: `R${r.regno}`, text: r.text })),
    stack: s.stack.map((sl) => ({ name: `fp${sl.off}`, text: sl.spilled !== undefined ? `${sl.spilled} (spilled)` : sl.types })),
  };
}

export const landedToolchain: Toolchain = {
  verify: (parsed) => {
    const v = verifyProgram(parsed, { logLevel: 2, states: 'first' });
    const states = (v.firstStates ?? []).map(stateView);
    return { accepted: v.accepted, log: v.log, ...(v.logTruncated ? { logTruncated: true } : {}), error: v.error, errorPc: v.errorPc, errorPath: v.errorPath, states, processed: v.insnsProcessed };
  },
  compile: (ws) => {
    const r = compileWorkspace(ws);
    return { spec: r.spec ?? null, diagnostics: r.diagnostics.map((d) => toDiagnostic(d, ws)) };
  },
  disassemble,
  examples: EXAMPLES.map((e) => ({ name: e.id, title: e.title, source: e.source, ...(e.setup ? { setup: e.setup } : {}) })),
  readPcap: (file) => {
    try {
      const { records, runts } = wireRecords(readCapture(file).records);
      return { frames: records.map((r) => r.data), runts };
    } catch (e) {
      return { error: (e as Error).message };
    }
  },
  sim: () => new DriverSim(loadProgram),
};
