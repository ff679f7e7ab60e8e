/**
 * Programs for `xdp-lab sim` and the sim bench: the seed samples by name,
 * compiled from src/examples by src/cc and run as real bytecode in src/vm;
 * and program files (C or a spec). With `--verify`, src/verifier judges the
 * program first and a rejected one is refused, as the kernel would refuse
 * to load it (off by default: `xdp-lab verify` is the verifier's command).
 * `--native` selects the simulator's TS reference programs instead.
 */
import { compileFile } from './ccflags';
import { parseJson, readTextFile, UsageError } from './io';
import { parseSpec, type ParsedSpec } from '../isa/spec';
import { verify } from '../verifier';
import { compileToSpec, examplePrograms, scenarioProgramSpec, vmHook, type ProgramResolver, type XdpHook } from '../sim';

/** Compile C source to a verified, parsed spec; throws UsageError with the first problem. */
let verifyPrograms = false;
/** Judge programs with the verifier before running them (xdp-lab sim --verify). */
export function setVerify(on: boolean): void {
  verifyPrograms = on;
}

export function compileVerified(source: string, file: string): ParsedSpec {
  const p = compileToSpec(source, file);
  if ('error' in p) throw new UsageError(p.error);
  return checkSpec(p.spec, file);
}

function checkSpec(json: unknown, file: string): ParsedSpec {
  const p = parseSpec(json);
  if ('error' in p) throw new UsageError(`${file}: ${p.error}`);
  if (!verifyPrograms) return p;
  const v = verify(p, { logLevel: 1 });
  if (!v.accepted) throw new UsageError(`${file}: rejected by the verifier: ${v.error ?? 'invalid program'}`);
  return p;
}

function hookOf(p: ParsedSpec, name: string): XdpHook {
  const h = vmHook(p, { name });
  if ('error' in h) throw new UsageError(`${name}: ${h.error}`);
  return h;
}

/** The scenarios' programs: compiled examples in the VM (see src/sim/example_programs.ts). */
export async function scenarioPrograms(): Promise<ProgramResolver> {
  return (name) => {
    if (verifyPrograms) checkSpec(scenarioProgramSpec(name).spec, `${name}.c`);
    return examplePrograms(name);
  };
}

export async function loadProgramHook(file: string, ccFlags: readonly string[] = []): Promise<XdpHook> {
  let parsed: ParsedSpec;
  if (file.endsWith('.c')) {
    // Includes read from disk with clang's flags, as `xdp-lab compile` reads them.
    const r = compileFile(file, ccFlags);
    const err = r.diagnostics.find((d) => d.severity === 'error');
    if (!r.spec || err) throw new UsageError(err ? `${err.span.file}:${err.span.line}:${err.span.col}: ${err.message}` : `${file}: does not compile`);
    parsed = checkSpec(JSON.parse(JSON.stringify(r.spec)), file);
  } else parsed = checkSpec(parseJson(readTextFile(file), file), file);
  return hookOf(parsed, file.split('/').pop()!);
}
