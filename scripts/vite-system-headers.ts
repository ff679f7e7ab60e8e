/**
 * Vite plugin: the system headers the app's compiler reads, bundled at build
 * time from the installed Debian packages — libbpf-dev's bpf/*.h,
 * linux-libc-dev's linux/, asm-generic/ (/usr/include) and asm/
 * (/usr/include/x86_64-linux-gnu), libxdp-dev's xdp/*.h, and glibc's
 * headers (libc6-dev's files as `dpkg -L` lists them, named as the CLI's
 * search finds them: /usr/include/x86_64-linux-gnu first, then
 * /usr/include; gnu/stubs-32.h from libc6-dev-i386, which a BPF target's
 * gnu/stubs.h includes) — never copies kept in the repository.
 *
 *   import { names, loadCommon, loadRest, loadVmlinux } from 'virtual:system-headers';
 *
 * Three lazily loaded chunks: "common" (every header reachable from the
 * headers XDP programs include — bpf_helpers.h, linux/bpf.h, if_ether.h,
 * ip.h, …; closed under #include), "rest" (everything else in those
 * folders) and "vmlinux" (generated/vmlinux.h, made by scripts/setup.sh from
 * the kernel's BTF, when present). Comments are blanked (newlines kept, so
 * diagnostics keep their line numbers) to keep the chunks small.
 * A missing package stops the build with a message naming it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';
import { SYSTEM_INCLUDE_DIRS } from '../src/cli/system_headers';

const ID = 'virtual:system-headers';
const RESOLVED = '\0' + ID;
const ROOTS: { dir: string; prefix: string; pkg: string }[] = [
  { dir: '/usr/include/bpf', prefix: 'bpf', pkg: 'libbpf-dev' },
  { dir: '/usr/include/linux', prefix: 'linux', pkg: 'linux-libc-dev' },
  { dir: '/usr/include/asm-generic', prefix: 'asm-generic', pkg: 'linux-libc-dev' },
  { dir: '/usr/include/x86_64-linux-gnu/asm', prefix: 'asm', pkg: 'linux-libc-dev' },
  // xdp-tools' BPF-side headers (<xdp/xdp_helpers.h>, <xdp/parsing_helpers.h>, …), as the CLI reads them.
  { dir: '/usr/include/xdp', prefix: 'xdp', pkg: 'libxdp-dev' },
];
/** glibc's headers: the C library's include folders, searched in the CLI's order. */
const LIBC_DIRS = SYSTEM_INCLUDE_DIRS;
const LIBC_PACKAGES = [
  { pkg: 'libc6-dev', only: undefined },
  { pkg: 'libc6-dev-i386', only: new Set(['gnu/stubs-32.h']) },
];

/** What XDP programs include; with everything these include, the chunk loaded first. */
const COMMON_ROOTS = [
  'bpf/bpf_helpers.h', 'bpf/bpf_endian.h', 'bpf/bpf_core_read.h', 'bpf/bpf_tracing.h',
  'string.h', 'errno.h', 'endian.h', 'sys/socket.h',
  'linux/bpf.h', 'linux/types.h', 'linux/if_ether.h', 'linux/ip.h', 'linux/ipv6.h', 'linux/in.h', 'linux/in6.h',
  'linux/tcp.h', 'linux/udp.h', 'linux/icmp.h', 'linux/icmpv6.h', 'linux/if_vlan.h', 'linux/if_packet.h',
  'linux/pkt_cls.h', 'linux/if_xdp.h', 'linux/errno.h', 'asm/errno.h', 'linux/stddef.h', 'linux/if_link.h', 'linux/netdevice.h',
];

/** Blank out comments, keeping newlines and string/char literals. */
export function stripComments(src: string): string {
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      out += src.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      out += ' ' + src.slice(i, stop).replace(/[^\n]/g, '');
      i = stop;
    } else if (c === '/' && src[i + 1] === '/') {
      let j = i;
      while (j < src.length && src[j] !== '\n') j += src[j] === '\\' && src[j + 1] === '\n' ? 2 : 1;
      out += ' ' + src.slice(i, j).replace(/[^\n]/g, '');
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out.replace(/[ \t]+\n/g, '\n');
}

function walk(dir: string, prefix: string, out: Map<string, string>): void {
  for (const n of readdirSync(dir).sort()) {
    const full = path.join(dir, n);
    const name = `${prefix}/${n}`;
    if (statSync(full).isDirectory()) walk(full, name, out);
    else if (n.endsWith('.h') && !out.has(name)) out.set(name, stripComments(readFileSync(full, 'utf8')));
  }
}

interface Bundle { common: Record<string, string>; rest: Record<string, string>; vmlinux?: string }

/** glibc's headers by include name: each package's .h files (dpkg -L), the first folder of LIBC_DIRS that holds a name winning. */
function libc(out: Map<string, string>): void {
  const byName = new Map<string, { dir: number; file: string }>();
  for (const { pkg, only } of LIBC_PACKAGES) {
    let files: string[];
    try {
      files = execFileSync('dpkg', ['-L', pkg], { encoding: 'utf8' }).split('\n');
    } catch {
      throw new Error(`system headers: the C library's headers are missing; install the Debian package ${pkg} (apt-get install ${pkg}), or run scripts/setup.sh`);
    }
    for (const file of files) {
      if (!file.endsWith('.h')) continue;
      const dir = LIBC_DIRS.findIndex((d) => file.startsWith(d + '/'));
      if (dir < 0) continue;
      const name = file.slice(LIBC_DIRS[dir]!.length + 1);
      if (only && !only.has(name)) continue;
      const seen = byName.get(name);
      if (!seen || dir < seen.dir) byName.set(name, { dir, file });
    }
  }
  for (const [name, { file }] of [...byName].sort((a, b) => a[0].localeCompare(b[0]))) {
    if (!out.has(name) && existsSync(file)) out.set(name, stripComments(readFileSync(file, 'utf8')));
  }
}

function collect(root: string): Bundle {
  for (const r of ROOTS) {
    if (!existsSync(r.dir)) throw new Error(`system headers: ${r.dir} is missing; install the Debian package ${r.pkg} (apt-get install ${r.pkg}), or run scripts/setup.sh`);
  }
  const all = new Map<string, string>();
  for (const r of ROOTS) walk(r.dir, r.prefix, all);
  libc(all);
  // The include closure of the common roots (names resolve as the compiler resolves them: by include name, or beside the includer).
  const common = new Set<string>();
  const work = [...COMMON_ROOTS.filter((n) => all.has(n))];
  while (work.length) {
    const n = work.pop()!;
    if (common.has(n)) continue;
    common.add(n);
    for (const m of all.get(n)!.matchAll(/^\s*#\s*include(?:_next)?\s*[<"]([^>"]+)[>"]/gm)) {
      const inc = m[1]!;
      const beside = path.posix.normalize(path.posix.join(path.posix.dirname(n), inc));
      if (all.has(inc)) work.push(inc);
      else if (all.has(beside)) work.push(beside);
    }
  }
  const b: Bundle = { common: {}, rest: {} };
  for (const [n, t] of all) (common.has(n) ? b.common : b.rest)[n] = t;
  const vml = path.join(root, 'generated', 'vmlinux.h');
  if (existsSync(vml)) b.vmlinux = readFileSync(vml, 'utf8');
  return b;
}

export function systemHeaders(): Plugin {
  let bundle: Bundle | undefined;
  let root = process.cwd();
  const get = (): Bundle => (bundle ??= collect(root));
  return {
    name: 'xdp-lab-system-headers',
    configResolved(c) {
      root = c.root;
    },
    resolveId(id) {
      if (id === ID || id.startsWith(ID + '/')) return '\0' + id;
      return undefined;
    },
    load(id) {
      if (id === RESOLVED) {
        const b = get();
        const names = [...Object.keys(b.common), ...Object.keys(b.rest), ...(b.vmlinux ? ['vmlinux.h'] : [])];
        return [
          `export const names = ${JSON.stringify(names)};`,
          `export const commonNames = ${JSON.stringify(Object.keys(b.common))};`,
          `export const loadCommon = () => import('${ID}/common').then((m) => m.default);`,
          `export const loadRest = () => import('${ID}/rest').then((m) => m.default);`,
          `export const loadVmlinux = () => ${b.vmlinux ? `import('${ID}/vmlinux').then((m) => m.default)` : 'Promise.resolve(undefined)'};`,
        ].join('\n');
      }
      if (id === `${RESOLVED}/common`) return `export default ${JSON.stringify(get().common)};`;
      if (id === `${RESOLVED}/rest`) return `export default ${JSON.stringify(get().rest)};`;
      if (id === `${RESOLVED}/vmlinux`) return `export default ${JSON.stringify(get().vmlinux ?? '')};`;
      return undefined;
    },
  };
}
