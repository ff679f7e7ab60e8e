/**
 * The one program pipeline: compile → verify → load → attach. The app's
 * build (stages.ts), the CLI's commands (compile, verify, run, sim --prog,
 * the scenarios), the sim's named scenarios and the tests all go through
 * these functions, so a program means the same thing everywhere. The sim
 * only ever receives what comes out of load (bytecode in the VM, and maps);
 * it never sees the compiler.
 *
 * The input is a Workspace (src/cc/workspace.ts), compiled by the
 * compiler's compileWorkspace (includes resolved as clang does, the system
 * headers from the installed reader).
 */
import { compileWorkspace as ccCompileWorkspace, formatDiagnostic, type CompileOptions, type CompileResult } from '../cc';
import { singleFileWorkspace, type Workspace } from '../cc/workspace';
import { parseSpec, type ParsedSpec } from '../isa/spec';
import { verify, type VerifyOptions, type VerifyResult } from '../verifier';
import { vmHook, type VmHook, type VmHookOptions } from '../sim';

export { singleFileWorkspace, type Workspace };

/** Compile the workspace's main file (the compiler's diagnostics, and the spec when there is no error). */
export function compileWorkspace(ws: Workspace, opts: CompileOptions = {}): CompileResult {
  return ccCompileWorkspace(ws, opts);
}

/** The first error (else the first diagnostic) as one clang-style line. */
export function firstProblem(r: CompileResult, ws: Workspace): string {
  const d = r.diagnostics.find((x) => x.severity === 'error') ?? r.diagnostics[0];
  const text = ws.files.find((f) => f.path === ws.main)?.text ?? '';
  return d ? formatDiagnostic(d, text).split('\n')[0]! : `${ws.main}: does not compile`;
}

/** Compile to a parsed (decoded, checked) program; one line saying why not otherwise. */
export function compileProgram(ws: Workspace, opts: CompileOptions = {}): ParsedSpec | { error: string } {
  const c = compileWorkspace(ws, opts);
  if (!c.spec) return { error: firstProblem(c, ws) };
  return specProgram(JSON.parse(JSON.stringify(c.spec)), ws.main);
}

/** A program spec (the JSON contract, e.g. from a file) decoded and checked; one line saying why not otherwise. */
export function specProgram(json: unknown, name: string): ParsedSpec | { error: string } {
  const p = parseSpec(json);
  return 'error' in p ? { error: `${name}: ${p.error}` } : p;
}

/** The verifier's judgement (as the kernel's BPF_PROG_LOAD would give it). */
export function verifyProgram(p: ParsedSpec, opts: VerifyOptions = {}): VerifyResult {
  return verify(p, opts);
}

/** Load a program into the VM, ready to attach to the simulated NIC; map entries user space installs first: [map name, key, value]. */
export function loadProgram(p: ParsedSpec, opts: VmHookOptions = {}, entries: readonly [string, Uint8Array, Uint8Array][] = []): VmHook | { error: string } {
  const h = vmHook(p, opts);
  if ('error' in h) return h;
  for (const [mapName, key, value] of entries) {
    const i = (p.spec.maps ?? []).findIndex((m) => m.name === mapName);
    const rc = h.maps[i]?.userUpdate(key, value) ?? -2;
    if (rc !== 0) return { error: `${opts.name ?? 'program'}: cannot install ${mapName} entry (${rc})` };
  }
  return h;
}

/** compile → (verify) → load, for a C source: the hook, or one line saying where it stopped. */
export function buildHook(ws: Workspace, opts: { verify?: boolean; name?: string; hook?: VmHookOptions } = {}): VmHook | { error: string } {
  const p = compileProgram(ws);
  if ('error' in p) return p;
  return loadChecked(p, ws.main, opts);
}

/** (verify) → load, for a decoded program. */
export function loadChecked(p: ParsedSpec, file: string, opts: { verify?: boolean; name?: string; hook?: VmHookOptions } = {}): VmHook | { error: string } {
  if (opts.verify) {
    const v = verifyProgram(p, { logLevel: 1 });
    if (!v.accepted) return { error: `${file}: rejected by the verifier: ${v.error ?? 'invalid program'}` };
  }
  return loadProgram(p, { name: opts.name ?? file.split('/').pop()!, ...opts.hook });
}

/** Compile a one-file program given as text (tests, the CLI). */
export function compileSource(source: string, file = 'prog.c'): ParsedSpec | { error: string } {
  return compileProgram(singleFileWorkspace(source, file));
}
