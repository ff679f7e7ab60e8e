/**
 * The raw SYN-cookie helpers (bpf_tcp_raw_gen_syncookie_ipv4/_ipv6 and
 * bpf_tcp_raw_check_syncookie_ipv4/_ipv6) with the kernel's contract:
 *
 *  - gen(iph, th, th_len): -EINVAL unless th_len is at least a TCP header
 *    and equals th->doff * 4; else the MSS is the SYN's MSS option (536,
 *    TCP_MSS_DEFAULT, without one) rounded down to the family's table
 *    (IPv4 536/1300/1440/1460, IPv6 1220/1420/1440/8940, the first when
 *    below all), and the result is cookie | (mss << 32);
 *  - check(iph, th): 0 when ntohl(th->ack_seq) - 1 is a cookie this host
 *    made for the ACK's 4-tuple and its ntohl(th->seq) - 1, within
 *    the last two cookie minutes, else -EACCES.
 *
 * The cookie has the kernel's layout (a hash of the 4-tuple plus the
 * client's sequence number, the minute counter in the top 8 bits, the MSS
 * index in the low 24 under a second hash); the kernel's hash is SipHash
 * under a secret drawn at boot, which no run could reproduce, so the
 * simulated host uses a fixed keyed mix instead, and its cookie clock
 * stands at minute 0. A cookie the VM made checks in the VM; values differ
 * from any real kernel's, as they do between two kernels.
 */
import type { HelperFn, Machine } from './interp';
import { EACCES, EINVAL } from '../isa/errno';

const COOKIEBITS = 24, COOKIEMASK = (1 << COOKIEBITS) - 1;
const MAX_SYNCOOKIE_AGE = 2;
const MSSTAB4 = [536, 1300, 1440, 1460];
const MSSTAB6 = [1280 - 60, 1480 - 60, 1500 - 60, 9000 - 60];
const TCP_MSS_DEFAULT = 536;

/** A keyed 32-bit mix of the words (murmur3's finaliser per word): deterministic, not secret. */
function mix(words: number[], salt: number): number {
  let h = 0x9e3779b9 ^ salt;
  for (const w of words) {
    let k = Math.imul(w, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const be32 = (b: Uint8Array, o: number): number => ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;

/** saddr, daddr words and the ports word, as the header holds them. */
function tuple(ip: Uint8Array, v6: boolean, th: Uint8Array): number[] {
  const words: number[] = [];
  const [from, n] = v6 ? [8, 8] : [12, 2];
  for (let i = 0; i < n; i++) words.push(be32(ip, from + 4 * i));
  words.push(be32(th, 0));
  return words;
}

function cookieOf(t: number[], sseq: number, count: number, data: number): number {
  return (mix(t, 0) + sseq + (count << COOKIEBITS) + ((mix([...t, count], 1) + data) & COOKIEMASK)) >>> 0;
}

/** The MSS index a cookie holds, or -1 when it is not one of ours from the last two minutes. */
function checkCookie(t: number[], cookie: number, sseq: number, count: number): number {
  const c = (cookie - mix(t, 0) - sseq) >>> 0;
  const diff = (count - (c >>> COOKIEBITS)) & 0xff;
  if (diff >= MAX_SYNCOOKIE_AGE) return -1;
  return ((c - mix([...t, count - diff], 1)) & COOKIEMASK) >>> 0;
}

/** The MSS option of a TCP header's options (0: none), as tcp_parse_mss_option reads them. */
function mssOption(th: Uint8Array): number {
  let i = 20;
  const end = th.length;
  while (i < end) {
    const kind = th[i]!;
    if (kind === 0) break;
    if (kind === 1) { i++; continue; }
    if (i + 1 >= end) break;
    const size = th[i + 1]!;
    if (size < 2 || size > end - i) break;
    if (kind === 2 && size === 4) {
      const v = (th[i + 2]! << 8) | th[i + 3]!;
      if (v) return v;
    }
    i += size;
  }
  return 0;
}

/** The simulated host's cookie clock (tcp_cookie_time): minute 0, see the header. */
const COOKIE_MINUTE = 0;

function gen(v6: boolean): HelperFn {
  return (m: Machine, pc: number) => {
    const thLen = m.lo[3]! >>> 0;
    const head = m.bytesAt(pc, 2, 20, false);
    if (thLen < 20 || thLen !== (head[12]! >> 4) * 4) return m.setReg(0, -EINVAL);
    const th = m.bytesAt(pc, 2, thLen, false);
    const ip = m.bytesAt(pc, 1, v6 ? 40 : 20, false);
    const tab = v6 ? MSSTAB6 : MSSTAB4;
    const mss = mssOption(th) || TCP_MSS_DEFAULT;
    let ind = tab.length - 1;
    while (ind > 0 && mss < tab[ind]!) ind--;
    const cookie = cookieOf(tuple(ip, v6, th), be32(th, 4), COOKIE_MINUTE, ind);
    m.setReg(0, BigInt(cookie) | (BigInt(tab[ind]!) << 32n));
  };
}

function check(v6: boolean): HelperFn {
  return (m: Machine, pc: number) => {
    const th = m.bytesAt(pc, 2, 20, false);
    const ip = m.bytesAt(pc, 1, v6 ? 40 : 20, false);
    const cookie = (be32(th, 8) - 1) >>> 0;
    const ind = checkCookie(tuple(ip, v6, th), cookie, (be32(th, 4) - 1) >>> 0, COOKIE_MINUTE);
    m.setReg(0, ind >= 0 && ind < (v6 ? MSSTAB6 : MSSTAB4).length ? 0 : -EACCES);
  };
}

/** The helpers by id (BPF_FUNC_tcp_raw_gen_syncookie_ipv4 = 204 … check_syncookie_ipv6 = 207). */
export function syncookieHelpers(): Map<number, HelperFn> {
  return new Map([[204, gen(false)], [205, gen(true)], [206, check(false)], [207, check(true)]]);
}
