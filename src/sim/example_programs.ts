/**
 * The scenarios' programs as real bytecode: the seed samples from
 * src/examples compiled by src/cc and run in src/vm. (The seed 004 samples,
 * xdp_rxq_info and xdp_redirect_cpu, are not among the examples yet: their
 * native references stand in, marked [native].)
 */
import { compile, formatDiagnostic } from '../cc';
import { EXAMPLES } from '../examples';
import { parseSpec, type ParsedSpec } from '../isa/spec';
import { nativePrograms, type ProgramResolver } from './scenarios';
import { vmHook } from './vm_hook';
import type { XdpHook } from './program';

/** Compile C to a parsed spec; a one-line error otherwise. */
export function compileToSpec(source: string, file: string): ParsedSpec | { error: string } {
  const c = compile(source, { file });
  if (!c.spec) {
    const first = c.diagnostics.find((d) => d.severity === 'error') ?? c.diagnostics[0];
    return { error: first ? formatDiagnostic(first, source).split('\n')[0]! : `${file}: does not compile` };
  }
  const p = parseSpec(JSON.parse(JSON.stringify(c.spec)));
  return 'error' in p ? { error: `${file}: ${p.error}` } : p;
}

const cache = new Map<string, ParsedSpec>();

export function exampleSpec(id: string): ParsedSpec {
  let p = cache.get(id);
  if (!p) {
    const ex = EXAMPLES.find((e) => e.id === id);
    if (!ex) throw new Error(`no example program '${id}'`);
    const r = compileToSpec(ex.source, `${id}.c`);
    if ('error' in r) throw new Error(r.error);
    cache.set(id, (p = r));
  }
  return p;
}

function hook(id: string): XdpHook {
  const h = vmHook(exampleSpec(id), { name: id });
  if ('error' in h) throw new Error(h.error);
  return h;
}

export const examplePrograms: ProgramResolver = (name) => {
  switch (name) {
    case 'xdp1':
      return hook('xdp1');
    case 'xdp2':
      return hook('xdp2');
    case 'xdp_pass':
      return hook('xdp-pass-count');
    default:
      return nativePrograms(name);
  }
};
