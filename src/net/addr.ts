/**
 * Address text <-> bytes for MAC, IPv4 and IPv6, and the arithmetic flow
 * generators need (the n-th address of a range). Bad text is reported as a
 * message, never thrown deep inside packet building.
 */

export function parseMac(s: string): Uint8Array {
  const parts = s.split(/[:-]/);
  if (parts.length !== 6 || parts.some((p) => !/^[0-9a-fA-F]{1,2}$/.test(p))) throw new Error(`bad MAC address '${s}'`);
  return Uint8Array.from(parts.map((p) => parseInt(p, 16)));
}

export function formatMac(b: Uint8Array, off = 0): string {
  const out: string[] = [];
  for (let i = 0; i < 6; i++) out.push(b[off + i]!.toString(16).padStart(2, '0'));
  return out.join(':');
}

/** IPv4 dotted quad to an unsigned 32-bit number. */
export function parseIPv4(s: string): number {
  const parts = s.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) throw new Error(`bad IPv4 address '${s}'`);
  return parts.reduce((a, p) => a * 256 + Number(p), 0);
}

export function formatIPv4(v: number): string {
  return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
}

/** IPv6 text (with :: compression) to 16 bytes. */
export function parseIPv6(s: string): Uint8Array {
  const bad = () => new Error(`bad IPv6 address '${s}'`);
  const halves = s.split('::');
  if (halves.length > 2) throw bad();
  const words = (h: string) => (h === '' ? [] : h.split(':'));
  const head = words(halves[0]!);
  const tail = halves.length === 2 ? words(halves[1]!) : [];
  const fill = 8 - head.length - tail.length;
  if ((halves.length === 1 && fill !== 0) || fill < 0) throw bad();
  const all = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...tail];
  const out = new Uint8Array(16);
  all.forEach((w, i) => {
    if (!/^[0-9a-fA-F]{1,4}$/.test(w)) throw bad();
    const v = parseInt(w, 16);
    out[2 * i] = v >> 8;
    out[2 * i + 1] = v & 255;
  });
  return out;
}

export function formatIPv6(b: Uint8Array, off = 0): string {
  const w: string[] = [];
  for (let i = 0; i < 8; i++) w.push(((b[off + 2 * i]! << 8) | b[off + 2 * i + 1]!).toString(16));
  // Compress the longest run of zero words, as inet_ntop does.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && w[j] === '0') j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  if (best < 0) return w.join(':');
  return `${w.slice(0, best).join(':')}::${w.slice(best + bestLen).join(':')}`;
}
