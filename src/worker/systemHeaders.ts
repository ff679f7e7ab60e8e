/**
 * The app's system headers: before a build, load the chunks of the bundle
 * (scripts/vite-system-headers.ts) the program's includes need — the common
 * headers always, the rest of bpf/ linux/ asm/ asm-generic/ only when a file
 * includes one of them, vmlinux.h only when included — and install them as
 * the compiler's system headers (src/cc/system_headers.ts). The compiler
 * stays synchronous and never fetches anything itself.
 */
import { installSystemHeaders } from '../cc/system_headers';
import { commonNames, loadCommon, loadRest, loadVmlinux, names } from 'virtual:system-headers';

const loaded: Record<string, string> = {};
const common = new Set(commonNames);
const available = new Set(names);
let commonP: Promise<void> | undefined;
let restP: Promise<void> | undefined;
let vmlinuxP: Promise<void> | undefined;

installSystemHeaders((name) => loaded[name]);

const INCLUDE = /^[ \t]*#[ \t]*include(?:_next)?[ \t]*[<"]([^>"\n]+)[>"]/gm;

/** Every string inside a worker message's arguments (a source, or a workspace's files). */
function texts(x: unknown, out: string[] = [], depth = 0): string[] {
  if (typeof x === 'string') { if (x.includes('#')) out.push(x); }
  else if (x && typeof x === 'object' && !ArrayBuffer.isView(x) && !(x instanceof ArrayBuffer) && depth < 6) for (const v of Object.values(x)) texts(v, out, depth + 1);
  return out;
}

/** Load what these message arguments' #includes need; resolves at once when it is loaded already. */
export function prepareSystemHeaders(args: unknown): Promise<void> {
  const wants: Promise<void>[] = [];
  commonP ??= loadCommon().then((h) => void Object.assign(loaded, h));
  wants.push(commonP);
  for (const t of texts(args)) {
    for (const m of t.matchAll(INCLUDE)) {
      const name = m[1]!;
      if (name.endsWith('vmlinux.h')) wants.push((vmlinuxP ??= loadVmlinux().then((v) => { if (v) loaded['vmlinux.h'] = v; })));
      else if (available.has(name) && !common.has(name)) wants.push((restP ??= loadRest().then((h) => void Object.assign(loaded, h))));
    }
  }
  return Promise.all(wants).then(() => undefined);
}
