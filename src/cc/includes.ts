/**
 * Where an #include finds its file, in clang's order:
 *   "x.h": the including file's folder, then -iquote, then the <x.h> list;
 *   <x.h>: -I folders, -isystem folders, the freestanding C headers written
 *          here (where clang's resource dir sits), the system headers
 *          (libbpf-dev's bpf/*.h, linux-libc-dev's linux/ asm/ asm-generic/,
 *          glibc's from libc6-dev), then -idirafter folders.
 * #include_next continues after the folder the current file came from.
 *
 * Nothing here touches a disk: folders are looked up through `readFile`
 * (the workspace's files, or whatever reader the CLI passes) and the system
 * headers through `systemHeaders` (the CLI reads /usr/include, the app a
 * bundle built from the same packages). Paths are POSIX; a workspace's are
 * relative to its root, the CLI's to the working directory or absolute.
 */

export type HeaderReader = (path: string) => string | undefined;

type SearchDir = { kind: 'dir'; dir: string; flag: string } | { kind: 'builtin' } | { kind: 'system' };

export interface IncludeSearchOptions {
  /** -iquote folders. */
  quote?: readonly string[];
  /** -I folders. */
  angled?: readonly string[];
  /** -isystem folders. */
  system?: readonly string[];
  /** -idirafter folders. */
  after?: readonly string[];
  /** -nostdinc: no freestanding or system headers. */
  nostdinc?: boolean;
  /** Files by normalized path (the workspace, the disk). */
  readFile: HeaderReader;
  /** The freestanding C headers, by include name. */
  builtin: Readonly<Record<string, string>>;
  /** The system headers by include name ("linux/bpf.h"); absent when none are loaded. */
  systemHeaders?: HeaderReader;
  /** The folder built-in headers appear in (default BUILTIN_DIR; '' names them by include name alone). */
  builtinDir?: string;
}

export interface FoundFile {
  /** The file's identity and the name diagnostics show. */
  path: string;
  text: string;
  /** Index in the search list it came from (-1: the includer's folder or the command line). */
  dirIndex: number;
}

/** Where the built-in freestanding headers and the system headers appear in paths. */
export const BUILTIN_DIR = '<xdp-lab>';
export const SYSTEM_DIR = '/usr/include';
export const VMLINUX_PATH = '<kernel BTF>/vmlinux.h';

/** Which Debian package provides a system header, by its first path segment. */
export function packageFor(name: string, angled = true): string | undefined {
  const top = name.split('/')[0];
  if (top === 'bpf') return 'libbpf-dev';
  if (top === 'xdp') return 'libxdp-dev';
  if (top === 'linux' || top === 'asm' || top === 'asm-generic') return 'linux-libc-dev';
  // The C library's headers, <string.h>, <sys/socket.h>, <netinet/in.h>, …: a missing "x.h" is the program's own.
  if (!angled) return undefined;
  if (top === 'sys' || top === 'bits' || top === 'gnu' || top === 'netinet' || top === 'arpa' || top === 'net' || (!name.includes('/') && name.endsWith('.h'))) return 'libc6-dev';
  return undefined;
}

/** A header each package surely installs: its absence means the package is missing, not the file. */
const PACKAGE_PROBE: Record<string, string> = { 'libbpf-dev': 'bpf/bpf_helpers.h', 'libxdp-dev': 'xdp/xdp_helpers.h', 'linux-libc-dev': 'linux/types.h', 'libc6-dev': 'features.h' };

/** POSIX path normalisation that keeps leading '..' of relative paths. */
export function normalizePath(p: string): string {
  const abs = p.startsWith('/');
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (seg === '..' && abs) continue;
    else out.push(seg);
  }
  const s = out.join('/');
  return abs ? '/' + s : s || '.';
}

export function dirname(p: string): string {
  const k = p.lastIndexOf('/');
  if (k < 0) return '.';
  return k === 0 ? '/' : p.slice(0, k);
}

export function joinPath(dir: string, name: string): string {
  if (name.startsWith('/')) return normalizePath(name);
  return normalizePath(dir === '.' ? name : `${dir}/${name}`);
}

/** System include folders a Makefile names explicitly; the system headers already stand for them. */
const SYSTEM_FOLDERS = new Set(['/usr/include', '/usr/include/x86_64-linux-gnu', '/usr/local/include']);

export class IncludeSearch {
  private dirs: SearchDir[] = [];
  /** First index of the <x.h> list. */
  private angledStart: number;

  constructor(private opts: IncludeSearchOptions) {
    const dir = (flag: string) => (d: string): SearchDir | undefined => (SYSTEM_FOLDERS.has(normalizePath(d)) ? undefined : { kind: 'dir', dir: normalizePath(d), flag });
    const keep = (x: SearchDir | undefined): x is SearchDir => x !== undefined;
    this.dirs.push(...(opts.quote ?? []).map(dir('-iquote')).filter(keep));
    this.angledStart = this.dirs.length;
    this.dirs.push(...(opts.angled ?? []).map(dir('-I')).filter(keep));
    this.dirs.push(...(opts.system ?? []).map(dir('-isystem')).filter(keep));
    if (!opts.nostdinc) this.dirs.push({ kind: 'builtin' }, { kind: 'system' });
    this.dirs.push(...(opts.after ?? []).map(dir('-idirafter')).filter(keep));
  }

  /**
   * Find an include. `includer` is the path of the including file (undefined
   * for -include on the command line); `after` is the search index to
   * continue after, for #include_next.
   */
  find(name: string, angled: boolean, includer: string | undefined, after?: number): FoundFile | undefined {
    if (name.startsWith('/')) {
      const text = this.opts.readFile(normalizePath(name));
      return text === undefined ? undefined : { path: normalizePath(name), text, dirIndex: -1 };
    }
    let start = angled ? this.angledStart : 0;
    if (after !== undefined) start = after + 1;
    else if (!angled && includer !== undefined) {
      const f = this.besideIncluder(name, includer);
      if (f) return f;
    }
    for (let k = start; k < this.dirs.length; k++) {
      const f = this.lookIn(this.dirs[k]!, name);
      if (f) return { ...f, dirIndex: k };
    }
    return undefined;
  }

  /** "x.h" in the including file's folder; a system or built-in header's folder is looked up where it came from. */
  private besideIncluder(name: string, includer: string): FoundFile | undefined {
    const path = joinPath(dirname(includer), name);
    for (const [root, kind] of [[SYSTEM_DIR, 'system'], [BUILTIN_DIR, 'builtin']] as const) {
      if (path.startsWith(root + '/') && includer.startsWith(root + '/')) {
        const f = this.lookIn({ kind }, path.slice(root.length + 1));
        return f ? { ...f, dirIndex: -1 } : undefined;
      }
    }
    const text = this.opts.readFile(path);
    return text === undefined ? undefined : { path, text, dirIndex: -1 };
  }

  private lookIn(d: SearchDir, name: string): { path: string; text: string } | undefined {
    if (d.kind === 'dir') {
      const path = joinPath(d.dir, name);
      const text = this.opts.readFile(path);
      return text === undefined ? undefined : { path, text };
    }
    if (d.kind === 'builtin') {
      const text = this.opts.builtin[normalizePath(name)];
      const dir = this.opts.builtinDir ?? BUILTIN_DIR;
      return text === undefined ? undefined : { path: dir ? `${dir}/${normalizePath(name)}` : normalizePath(name), text };
    }
    const n = normalizePath(name);
    const text = this.opts.systemHeaders?.(n);
    // vmlinux.h is not a package's: it is generated from the running kernel's BTF (scripts/setup.sh).
    return text === undefined ? undefined : { path: n === 'vmlinux.h' ? VMLINUX_PATH : `${SYSTEM_DIR}/${n}`, text };
  }

  /** Why an include was not found, naming the search path and any missing package. */
  explainMissing(name: string, angled: boolean, includer: string | undefined): string {
    const where: string[] = [];
    if (!angled && includer !== undefined) where.push(`${dirname(includer)}/ (the including file's folder)`);
    for (let k = angled ? this.angledStart : 0; k < this.dirs.length; k++) {
      const d = this.dirs[k]!;
      if (d.kind === 'dir') where.push(`${d.flag} ${d.dir}`);
      else if (d.kind === 'builtin') where.push('the freestanding C headers');
      else where.push('the system headers');
    }
    let msg = `'${name}' file not found (searched: ${where.length ? where.join(', ') : 'nothing: -nostdinc and no -I'})`;
    const pkg = packageFor(name, angled);
    if (!this.opts.nostdinc) {
      if (!this.opts.systemHeaders) msg += `; no system headers are loaded (they come from libbpf-dev and linux-libc-dev)`;
      else if (pkg && this.opts.systemHeaders(PACKAGE_PROBE[pkg]!) === undefined) msg += `; ${pkg} is not installed (apt-get install ${pkg})`;
    }
    return msg;
  }
}
