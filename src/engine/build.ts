/**
 * One build: C source → compile → spec check → disassembly → verification.
 * Each stage reports ok / failed / skipped, so the UI can say exactly how
 * far a program got and why it stopped there.
 */
import { bytesToHex, encodeProgram, parseSpec, type ParsedSpec } from '../isa';
import { boundErrorPath, indexLog } from './logIndex';
import type { Toolchain } from './toolchain';
import type { Workspace } from '../cc/workspace';
import type { BuildResult, CompileInfo, Diagnostic, DisasmLine, StageResult, VerifyInfo } from './types';

export interface BuildOutput {
  result: BuildResult;
  /** The decoded program, when compilation produced one. */
  parsed: ParsedSpec | null;
}

export function runBuild(tc: Toolchain, seq: number, ws: Workspace): BuildOutput {
  const diagnostics: Diagnostic[] = [];
  const source = ws.files.find((f) => f.path === ws.main)?.text ?? '';
  const result = (compile: StageResult<CompileInfo>, disasm: StageResult<{ lines: DisasmLine[] }>, verify: StageResult<VerifyInfo>): BuildResult => ({
    seq, source, workspace: ws, diagnostics, compile, disasm, verify,
  });

  let out;
  try {
    out = tc.compile(ws);
  } catch (e) {
    const message = `internal compiler error: ${(e as Error)?.message ?? String(e)}`;
    diagnostics.push({ stage: 'engine', severity: 'error', message, line: 1, col: 1, endLine: 1, endCol: 1 });
    const failed = { status: 'failed' as const, message };
    return { result: result(failed, failed, { status: 'skipped', message: 'compilation failed' }), parsed: null };
  }
  diagnostics.push(...out.diagnostics);
  if (!out.spec) {
    const failed = { status: 'failed' as const, message: 'compilation failed' };
    return { result: result(failed, { status: 'skipped', message: 'compilation failed' }, { status: 'skipped', message: 'compilation failed' }), parsed: null };
  }
  const parsed = parseSpec(out.spec);
  if ('error' in parsed) {
    const message = `compiler produced an invalid program: ${parsed.error}`;
    diagnostics.push({ stage: 'engine', severity: 'error', message, line: 1, col: 1, endLine: 1, endCol: 1 });
    const failed = { status: 'failed' as const, message };
    return { result: result(failed, failed, { status: 'skipped', message }), parsed: null };
  }
  const lineOf: Record<number, number> = {};
  const fileOf: Record<number, string> = {};
  const inWorkspace = new Set(ws.files.map((f) => f.path));
  for (const li of parsed.spec.line_info ?? []) {
    lineOf[li.insn] = li.line;
    // Lines in system headers stay keyed to the main file's numbering only if nothing better is known.
    if (li.file && li.file !== ws.main && inWorkspace.has(li.file)) fileOf[li.insn] = li.file;
  }
  const compile: StageResult<CompileInfo> = {
    status: 'ok',
    insnCount: parsed.insns.length,
    maps: (parsed.spec.maps ?? []).map((m, i) => ({ name: m.name ?? `map${i}`, type: m.type, key_size: m.key_size, value_size: m.value_size, max_entries: m.max_entries })),
    lineOf,
    ...(Object.keys(fileOf).length ? { fileOf } : {}),
  };
  const disasm = listing(tc, parsed, ws, lineOf, fileOf);
  const verify = runVerify(tc, parsed, lineOf, fileOf, diagnostics);
  return { result: result(compile, disasm, verify), parsed };
}

/** llvm-objdump -S: each C line once, before the first instruction it produced. */
function listing(tc: Toolchain, parsed: ParsedSpec, ws: Workspace, lineOf: Record<number, number>, fileOf: Record<number, string>): StageResult<{ lines: DisasmLine[] }> {
  let texts: string[];
  try {
    texts = tc.disassemble(parsed.insns);
  } catch (e) {
    return { status: 'failed', message: `disassembler: ${(e as Error)?.message ?? String(e)}` };
  }
  const texts_ = new Map(ws.files.map((f) => [f.path, f.text.split('\n')]));
  const funcs = new Map((parsed.spec.funcs ?? []).map((f) => [f.insn, f.name]));
  const lines: DisasmLine[] = [];
  let lastLine = 0;
  let lastFile = ws.main;
  parsed.insns.forEach((insn, pc) => {
    if (pc > 0 && parsed.insns[pc - 1]!.code === 0x18) return; // second lddw slot
    const fn = funcs.get(pc);
    if (fn) lines.push({ kind: 'label', pc, text: `${fn}:` });
    const line = lineOf[pc];
    const file = line !== undefined ? fileOf[pc] ?? ws.main : lastFile;
    if (line !== undefined && (line !== lastLine || file !== lastFile)) {
      const text = texts_.get(file)?.[line - 1] ?? '';
      lines.push(file === ws.main ? { kind: 'source', line, text } : { kind: 'source', line, text, file });
      lastLine = line;
      lastFile = file;
    }
    const slots = insn.code === 0x18 ? parsed.insns.slice(pc, pc + 2) : [insn];
    lines.push({ kind: 'insn', pc, hex: bytesToHex(encodeProgram(slots)), text: texts[pc] ?? '', line: line ?? lastLine });
  });
  return { status: 'ok', lines };
}

function runVerify(tc: Toolchain, parsed: ParsedSpec, lineOf: Record<number, number>, fileOf: Record<number, string>, diagnostics: Diagnostic[]): StageResult<VerifyInfo> {
  let v;
  try {
    v = tc.verify(parsed);
  } catch (e) {
    return { status: 'failed', message: `internal verifier error: ${(e as Error)?.message ?? String(e)}` };
  }
  if (!v.accepted) {
    const line = lineOfPc(lineOf, v.errorPc);
    const file = fileOfPc(lineOf, fileOf, v.errorPc);
    diagnostics.push({
      stage: 'verifier', severity: 'error', code: 'verifier', ...(file ? { file } : {}),
      message: v.error ?? 'the verifier rejected the program',
      line, col: 1, endLine: line, endCol: 1000,
    });
  }
  const { starts, pcs, visits, pruned } = indexLog(v.log, parsed.insns.length);
  return {
    status: 'ok', accepted: v.accepted, log: v.log, ...(v.logTruncated ? { logTruncated: true } : {}),
    logIndex: { starts, pcs }, visits: { visits, pruned },
    error: v.error, errorPc: v.errorPc, ...boundErrorPath(v.errorPath), states: v.states, processed: v.processed,
  };
}

/** The C line of a slot: its own line_info, else the nearest earlier one. */
export function lineOfPc(lineOf: Record<number, number>, pc: number | undefined): number {
  if (pc === undefined) return 1;
  for (let p = pc; p >= 0; p--) { const l = lineOf[p]; if (l !== undefined) return l; }
  return 1;
}

/** The workspace file of a slot's line (undefined: the main file), found as lineOfPc finds the line. */
export function fileOfPc(lineOf: Record<number, number>, fileOf: Record<number, string> | undefined, pc: number | undefined): string | undefined {
  if (pc === undefined || !fileOf) return undefined;
  for (let p = pc; p >= 0; p--) if (lineOf[p] !== undefined) return fileOf[p];
  return undefined;
}
