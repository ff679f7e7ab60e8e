/**
 * pcapng (draft-ietf-opsawg-pcapng): written little endian with one
 * Section Header Block, an Interface Description Block per capture point
 * (Ethernet, if_name, nanosecond if_tsresol) and an Enhanced Packet Block
 * per packet, with an opt_comment when given (xdpdump's per-packet action).
 * The reader takes what this writer makes and what capture tools commonly
 * write (either byte order, SHB/IDB/EPB/SPB, comments; other blocks are
 * skipped), and refuses anything malformed with a PcapError naming it.
 */
import { LINKTYPE_ETHERNET, PcapError } from './pcap';

export const PCAPNG_SHB = 0x0a0d0d0a;
const BYTE_ORDER_MAGIC = 0x1a2b3c4d;
const IDB = 0x00000001;
const SPB = 0x00000003;
const EPB = 0x00000006;
const OPT_ENDOFOPT = 0;
const OPT_COMMENT = 1;
const IF_NAME = 2;
const IF_TSRESOL = 9;

export interface PcapngInterface {
  name: string;
  linkType?: number;
  snaplen?: number;
}

export interface PcapngPacket {
  /** Index into the interfaces. */
  iface: number;
  /** Timestamp in nanoseconds. */
  tsNs: number;
  data: Uint8Array;
  origLen?: number;
  comment?: string;
}

const pad4 = (n: number) => (n + 3) & ~3;
const utf8 = new TextEncoder();

function option(code: number, value: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + pad4(value.length));
  const dv = new DataView(out.buffer);
  dv.setUint16(0, code, true);
  dv.setUint16(2, value.length, true);
  out.set(value, 4);
  return out;
}

function block(type: number, body: Uint8Array[], options: Uint8Array[]): Uint8Array {
  const opts = options.length ? [...options, new Uint8Array(4) /* opt_endofopt */] : [];
  const len = 12 + [...body, ...opts].reduce((a, b) => a + b.length, 0);
  const out = new Uint8Array(len);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, type, true);
  dv.setUint32(4, len, true);
  let off = 8;
  for (const b of [...body, ...opts]) {
    out.set(b, off);
    off += b.length;
  }
  dv.setUint32(len - 4, len, true);
  return out;
}

function u32s(...vals: number[]): Uint8Array {
  const out = new Uint8Array(vals.length * 4);
  const dv = new DataView(out.buffer);
  vals.forEach((v, i) => dv.setUint32(i * 4, v >>> 0, true));
  return out;
}

/** A pcapng file: one section, these interfaces, these packets in order. */
export function writePcapng(interfaces: readonly PcapngInterface[], packets: readonly PcapngPacket[], opts: { comment?: string } = {}): Uint8Array {
  const blocks: Uint8Array[] = [];
  const shbBody = new Uint8Array(16);
  const sdv = new DataView(shbBody.buffer);
  sdv.setUint32(0, BYTE_ORDER_MAGIC, true);
  sdv.setUint16(4, 1, true);
  sdv.setUint16(6, 0, true);
  sdv.setInt32(8, -1, true); // section length: not given
  sdv.setInt32(12, -1, true);
  blocks.push(block(PCAPNG_SHB, [shbBody], opts.comment ? [option(OPT_COMMENT, utf8.encode(opts.comment))] : []));
  for (const i of interfaces) {
    const head = new Uint8Array(8);
    const dv = new DataView(head.buffer);
    dv.setUint16(0, i.linkType ?? LINKTYPE_ETHERNET, true);
    dv.setUint32(4, i.snaplen ?? 262144, true);
    blocks.push(block(IDB, [head], [option(IF_NAME, utf8.encode(i.name)), option(IF_TSRESOL, Uint8Array.of(9))]));
  }
  for (const p of packets) {
    if (p.iface < 0 || p.iface >= interfaces.length) throw new PcapError(`packet on interface ${p.iface}: only ${interfaces.length} described`);
    const ts = BigInt(Math.round(p.tsNs));
    const head = u32s(p.iface, Number(ts >> 32n), Number(ts & 0xffffffffn), p.data.length, p.origLen ?? p.data.length);
    const data = new Uint8Array(pad4(p.data.length));
    data.set(p.data);
    blocks.push(block(EPB, [head, data], p.comment ? [option(OPT_COMMENT, utf8.encode(p.comment))] : []));
  }
  const out = new Uint8Array(blocks.reduce((a, b) => a + b.length, 0));
  let off = 0;
  for (const b of blocks) {
    out.set(b, off);
    off += b.length;
  }
  return out;
}

export interface PcapngRead {
  /** nsPerTick: the interface's timestamp unit (if_tsresol) in nanoseconds. */
  interfaces: { name?: string; linkType: number; snaplen: number; nsPerTick: number }[];
  packets: { iface: number; tsNs: number; data: Uint8Array; origLen: number; comments: string[] }[];
  comments: string[];
}

const utf8d = new TextDecoder();

function readOptions(dv: DataView, bytes: Uint8Array, off: number, end: number, little: boolean, at: string): { code: number; value: Uint8Array }[] {
  const out: { code: number; value: Uint8Array }[] = [];
  while (off + 4 <= end) {
    const code = dv.getUint16(off, little);
    const len = dv.getUint16(off + 2, little);
    if (code === OPT_ENDOFOPT) break;
    if (off + 4 + len > end) throw new PcapError(`${at}: option ${code} runs past its block (${len} bytes)`);
    out.push({ code, value: bytes.subarray(off + 4, off + 4 + len) });
    off += 4 + pad4(len);
  }
  return out;
}

/** Read a pcapng file (one or more sections). */
export function readPcapng(bytes: Uint8Array): PcapngRead {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 28 || dv.getUint32(0, true) !== PCAPNG_SHB) throw new PcapError('not a pcapng file: no Section Header Block at the start');
  const res: PcapngRead = { interfaces: [], packets: [], comments: [] };
  let little = true;
  let ifBase = 0;
  let off = 0;
  let n = 0;
  while (off < bytes.length) {
    n++;
    if (off + 12 > bytes.length) throw new PcapError(`block ${n} at byte ${off} is truncated`);
    const type = dv.getUint32(off, true);
    if (type === PCAPNG_SHB) {
      const bom = dv.getUint32(off + 8, true);
      if (bom === BYTE_ORDER_MAGIC) little = true;
      else if (bom === 0x4d3c2b1a) little = false;
      else throw new PcapError(`block ${n}: bad byte-order magic 0x${bom.toString(16)}`);
      ifBase = res.interfaces.length;
    }
    const t = little ? type : dv.getUint32(off, false);
    const len = dv.getUint32(off + 4, little);
    if (len < 12 || len % 4 !== 0 || off + len > bytes.length) throw new PcapError(`block ${n} (type ${t}) at byte ${off}: bad length ${len}`);
    if (dv.getUint32(off + len - 4, little) !== len) throw new PcapError(`block ${n} (type ${t}): trailing length differs from ${len}`);
    const at = `block ${n}`;
    const end = off + len - 4;
    if (t === PCAPNG_SHB) {
      for (const o of readOptions(dv, bytes, off + 24, end, little, at)) if (o.code === OPT_COMMENT) res.comments.push(utf8d.decode(o.value));
    } else if (t === IDB) {
      const iface: PcapngRead['interfaces'][number] = { linkType: dv.getUint16(off + 8, little), snaplen: dv.getUint32(off + 12, little), nsPerTick: 1000 };
      for (const o of readOptions(dv, bytes, off + 16, end, little, at)) {
        if (o.code === IF_NAME) iface.name = utf8d.decode(o.value);
        if (o.code === IF_TSRESOL && o.value.length >= 1) {
          const r = o.value[0]!;
          iface.nsPerTick = r & 0x80 ? 1e9 / 2 ** (r & 0x7f) : 10 ** (9 - (r & 0x7f));
        }
      }
      res.interfaces.push(iface);
    } else if (t === EPB) {
      if (len < 32) throw new PcapError(`${at}: an Enhanced Packet Block of ${len} bytes is too short`);
      const iface = ifBase + dv.getUint32(off + 8, little);
      const desc = res.interfaces[iface];
      if (!desc) throw new PcapError(`${at}: packet on interface ${iface - ifBase}, which no Interface Description Block described`);
      const ts = dv.getUint32(off + 12, little) * 2 ** 32 + dv.getUint32(off + 16, little);
      const cap = dv.getUint32(off + 20, little);
      const origLen = dv.getUint32(off + 24, little);
      if (off + 28 + cap > end) throw new PcapError(`${at}: ${cap} captured bytes announced, the block holds ${end - off - 28}`);
      const comments = readOptions(dv, bytes, off + 28 + pad4(cap), end, little, at).filter((o) => o.code === OPT_COMMENT).map((o) => utf8d.decode(o.value));
      res.packets.push({ iface, tsNs: ts * desc.nsPerTick, data: bytes.slice(off + 28, off + 28 + cap), origLen, comments });
    } else if (t === SPB) {
      const desc = res.interfaces[ifBase];
      if (!desc) throw new PcapError(`${at}: a Simple Packet Block before any interface`);
      const origLen = dv.getUint32(off + 8, little);
      const cap = Math.min(origLen, desc.snaplen || origLen, end - off - 12);
      res.packets.push({ iface: ifBase, tsNs: 0, data: bytes.slice(off + 12, off + 12 + cap), origLen, comments: [] });
    }
    off += len;
  }
  return res;
}
