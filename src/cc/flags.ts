/**
 * clang's command-line flags as a workspace carries them (the same strings a
 * project's Makefile passes): the ones that change preprocessing are
 * honoured (-I, -iquote, -isystem, -idirafter, -D, -U, -include, -imacros,
 * -std=, -O0, -mcpu=, -nostdinc); the ones that only matter to clang's
 * code generation, warnings or output (-O2, -g, -target bpf, -W*, -f*, -m*,
 * -c, -o FILE, -MD…) are accepted and ignored. Anything else is an error
 * naming the flag, as clang says "unknown argument".
 *
 * An element may hold several words ("-idirafter dir"), as a Makefile
 * variable pasted whole does: elements are split like a shell splits them.
 */

export interface CcFlags {
  quote: string[];
  angled: string[];
  system: string[];
  after: string[];
  /** -D and -U in command-line order. */
  macros: ({ define: string; value: string } | { undef: string })[];
  /** -include files, in order. */
  includes: string[];
  /** -imacros files: their macros are kept, their output is not. */
  imacros: string[];
  nostdinc: boolean;
  /** __STDC_VERSION__ for -std=…, and whether it is a strict (non-GNU) mode. */
  stdVersion?: string;
  strictAnsi?: boolean;
  /** false for -O0 (clang then defines __NO_INLINE__ instead of __OPTIMIZE__). */
  optimize: boolean;
  cpuVersion?: number;
  /** -w: no warnings at all. */
  noWarnings?: boolean;
  /** -Wno-NAME: the warnings (clang's names) turned off. */
  warningsOff?: string[];
  errors: string[];
}

/** Split like a POSIX shell would: whitespace separates, quotes group, backslash escapes. */
export function shellSplit(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let q: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (q) {
      if (c === q) q = undefined;
      else if (c === '\\' && q === '"' && i + 1 < s.length) cur += s[++i];
      else cur += c;
    } else if (c === '"' || c === "'") { q = c; has = true; }
    else if (c === '\\' && i + 1 < s.length) { cur += s[++i]; has = true; }
    else if (/\s/.test(c)) { if (has || cur) out.push(cur); cur = ''; has = false; }
    else cur += c;
  }
  if (has || cur) out.push(cur);
  return out;
}

const STD_VERSIONS: Record<string, string> = {
  c89: '', c90: '', gnu89: '', gnu90: '', 'iso9899:1990': '',
  c99: '199901L', gnu99: '199901L', c9x: '199901L', gnu9x: '199901L',
  c11: '201112L', gnu11: '201112L', c1x: '201112L', gnu1x: '201112L',
  c17: '201710L', gnu17: '201710L', c18: '201710L', gnu18: '201710L',
  c2x: '202311L', gnu2x: '202311L', c23: '202311L', gnu23: '202311L',
};

/** Flags taking the next word as their argument when not glued to it. */
const WITH_ARG = new Set(['-I', '-iquote', '-isystem', '-idirafter', '-D', '-U', '-include', '-imacros', '-o', '-MF', '-MT', '-MQ', '-target', '-x', '-Xclang', '-mllvm', '-arch', '-isysroot', '--sysroot']);

export function parseCcFlags(flags: readonly string[]): CcFlags {
  const r: CcFlags = { quote: [], angled: [], system: [], after: [], macros: [], includes: [], imacros: [], nostdinc: false, optimize: true, errors: [] };
  const words = flags.flatMap((f) => (/\s/.test(f) ? shellSplit(f) : [f]));
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const takeArg = (name: string): string | undefined => {
      if (w.length > name.length) return w.slice(name.length);
      const v = words[++i];
      if (v === undefined) r.errors.push(`argument to '${name}' is missing (expected 1 value)`);
      return v;
    };
    const glued = (name: string): boolean => w === name || (w.startsWith(name) && !WITH_ARG.has(w));
    if (glued('-I')) { const v = takeArg('-I'); if (v !== undefined) r.angled.push(v); }
    else if (w === '-I-') continue;
    else if (glued('-iquote')) { const v = takeArg('-iquote'); if (v !== undefined) r.quote.push(v); }
    else if (glued('-isystem')) { const v = takeArg('-isystem'); if (v !== undefined) r.system.push(v); }
    else if (glued('-idirafter')) { const v = takeArg('-idirafter'); if (v !== undefined) r.after.push(v); }
    else if (glued('-D')) {
      const v = takeArg('-D');
      if (v === undefined) continue;
      const eq = v.indexOf('=');
      const name = eq < 0 ? v : v.slice(0, eq);
      if (!/^[A-Za-z_]\w*(\([^)]*\))?$/.test(name)) { r.errors.push(`invalid macro name in '-D${v}'`); continue; }
      r.macros.push({ define: name, value: eq < 0 ? '1' : v.slice(eq + 1) });
    } else if (glued('-U')) { const v = takeArg('-U'); if (v !== undefined) r.macros.push({ undef: v }); }
    else if (w === '-include' || w.startsWith('-include') && w.length > 8 && !w.startsWith('-include-')) { const v = takeArg('-include'); if (v !== undefined) r.includes.push(v); }
    else if (w === '-imacros') { const v = words[++i]; if (v === undefined) r.errors.push("argument to '-imacros' is missing (expected 1 value)"); else r.imacros.push(v); }
    else if (w.startsWith('-std=')) {
      const v = STD_VERSIONS[w.slice(5)];
      if (v === undefined) r.errors.push(`invalid value '${w.slice(5)}' in '${w}'`);
      else { r.stdVersion = v || undefined; r.strictAnsi = w.slice(5).startsWith('c') || w.slice(5).startsWith('iso'); }
    } else if (/^-O([0-3sz]|fast)?$/.test(w)) r.optimize = w !== '-O0';
    else if (w.startsWith('-mcpu=')) {
      const v = w.slice(6);
      const m = /^v([1-4])$/.exec(v);
      if (m) r.cpuVersion = Number(m[1]);
      else if (v === 'generic' || v === 'probe') r.cpuVersion = 1;
      else r.errors.push(`unknown target CPU '${v}' (v1, v2, v3, v4, generic or probe)`);
    } else if (w === '-nostdinc' || w === '-nostdlibinc' || w === '-nobuiltininc') r.nostdinc ||= w === '-nostdinc';
    else if (w === '-target' || w === '-o' || w === '-MF' || w === '-MT' || w === '-MQ' || w === '-x' || w === '-Xclang' || w === '-mllvm' || w === '-arch' || w === '-isysroot' || w === '--sysroot') i++;
    else if (/^(-g.*|-W.*|-w|-f.*|-m.*|-c|-S|-E|-emit-llvm|-pipe|-v|-M|-MM|-MD|-MMD|-MP|-pedantic.*|--target=.*|-target=.*|--sysroot=.*|-Qunused-arguments|-ansi|-nostdlib|-static|-shared|-save-temps.*)$/.test(w)) {
      if (w === '-ansi') { r.stdVersion = undefined; r.strictAnsi = true; }
      else if (w === '-w') r.noWarnings = true;
      else if (w.startsWith('-Wno-')) (r.warningsOff ??= []).push(w.slice(5));
    } else if (!w.startsWith('-')) r.errors.push(`unexpected input file '${w}' among the flags`);
    else r.errors.push(`unknown argument: '${w}'`);
  }
  return r;
}
