/**
 * Fuzz target "pcap": classic pcap files (either byte order, micro- and
 * nanosecond magic, odd link types and snaplens, 0-byte and huge records)
 * written by writePcap or by hand, and pcapng files (writePcapng: several
 * interfaces, comments, odd link types) read through readCapture as the
 * lab's upload reads them, then damaged byte by byte, cut short,
 * grown or given extreme header fields. Properties: readPcap either returns
 * records or throws a PcapError (one line naming the problem) — never
 * anything else; what it returns is well formed (each record's bytes lie in
 * the file, the timestamp's fraction is below a second) and survives a
 * write/read round trip. Failing inputs (hex):
 * tests/fuzz/regressions/pcap/.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bytesToHex, hexToBytes } from '../../../src/isa';
import { PCAPNG_SHB, PcapError, readCapture, readPcap, writePcap, writePcapng } from '../../../src/net';
import { errorText, below, pick, type FuzzTarget, type Rng } from '../types';
import { randomPacket } from './bytecode';

/** A pcapng: one to three interfaces (some not Ethernet), packets on them with comments. */
function freshPcapng(r: Rng): Uint8Array {
  const ifaces = Array.from({ length: 1 + below(r, 3) }, (_, i) => ({ name: `if${i}`, linkType: r() < 0.8 ? 1 : pick(r, [0, 101, 113, 276]), snaplen: pick(r, [0, 64, 65535]) }));
  const packets = Array.from({ length: below(r, 5) }, () => {
    const data = r() < 0.1 ? new Uint8Array(0) : randomPacket(r);
    return { iface: below(r, ifaces.length), tsNs: below(r, 2 ** 40), data, ...(r() < 0.5 ? { comment: `packet ${below(r, 100)}` } : {}) };
  });
  return writePcapng(ifaces, packets, r() < 0.3 ? { comment: 'fuzz' } : {});
}

function fresh(r: Rng): Uint8Array {
  if (r() < 0.3) return freshPcapng(r);
  const records = Array.from({ length: below(r, 5) }, () => {
    const data = r() < 0.1 ? new Uint8Array(0) : randomPacket(r);
    return { sec: below(r, 2 ** 32), nsec: below(r, 1e9), data, origLen: r() < 0.8 ? data.length : below(r, 2 ** 32) };
  });
  const out = writePcap(records, { micro: r() < 0.5, snaplen: pick(r, [0, 64, 65535, 262144, 0xffffffff]) });
  const dv = new DataView(out.buffer);
  if (r() < 0.1) dv.setUint32(20, pick(r, [0, 101, 113, 276, 0x10000001, below(r, 2 ** 32)]), true);
  if (r() < 0.3) {
    // Big endian: swap every 32-bit header field (and the version's two halves).
    const swap32 = (at: number) => dv.setUint32(at, dv.getUint32(at, true), false);
    const swap16 = (at: number) => dv.setUint16(at, dv.getUint16(at, true), false);
    swap32(0); swap16(4); swap16(6); swap32(8); swap32(12); swap32(16); swap32(20);
    let off = 24;
    while (off + 16 <= out.length) {
      const incl = dv.getUint32(off + 8, true);
      for (let f = 0; f < 16; f += 4) swap32(off + f);
      off += 16 + incl;
    }
  }
  return out;
}

function mutateBytes(b: Uint8Array, r: Rng): Uint8Array {
  const k = below(r, 6);
  if (k === 0 && b.length) { const c = b.slice(); c[below(r, c.length)] = below(r, 256); return c; }
  if (k === 1) return b.slice(0, below(r, b.length + 1));
  if (k === 2) { const extra = new Uint8Array(below(r, 40)).map(() => below(r, 256)); const c = new Uint8Array(b.length + extra.length); c.set(b); c.set(extra, b.length); return c; }
  if (k === 3 && b.length >= 24) {
    // An extreme value in a header field: the file header or a record header.
    const c = b.slice();
    const at = r() < 0.4 ? pick(r, [0, 16, 20]) : 24 + 4 * below(r, Math.max(1, Math.floor((c.length - 24) / 4)));
    if (at + 4 <= c.length) new DataView(c.buffer).setUint32(at, pick(r, [0, 1, 0xffffffff, 0x7fffffff, 999_999, 1_000_000, 999_999_999, 1e9, 16, 65536]), r() < 0.5);
    return c;
  }
  if (k === 4 && b.length > 8) { const at = below(r, b.length); const c = new Uint8Array(b.length + 8); c.set(b.subarray(0, at)); c.set(b.subarray(at, at + 8), at); c.set(b.subarray(at), at + 8); return c.subarray(0, b.length + Math.min(8, b.length - at)); }
  return b;
}

export const pcapTarget: FuzzTarget<Uint8Array> = {
  name: 'pcap',
  hangMs: 2000,
  regressionDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../regressions/pcap'),
  ext: 'hex',
  generate: fresh,
  mutate: mutateBytes,
  run(input) {
    if (input.length >= 4 && new DataView(input.buffer, input.byteOffset, 4).getUint32(0, true) === PCAPNG_SHB) {
      try {
        const c = readCapture(input);
        for (const [i, rec] of c.records.entries()) {
          if (!(rec.nsec >= 0 && rec.nsec < 1e9) || !Number.isFinite(rec.tsNs)) return { kind: 'failure', why: `pcapng record ${i}: time ${rec.sec} s ${rec.nsec} ns` };
          if (rec.data.length > input.length) return { kind: 'failure', why: `pcapng record ${i}: ${rec.data.length} bytes from a ${input.length}-byte file` };
        }
        return { kind: 'ok' };
      } catch (e) {
        if (e instanceof PcapError) return e.message && !e.message.includes('\n') ? { kind: 'expected', why: e.message } : { kind: 'failure', why: `PcapError without a one-line message: ${JSON.stringify(e.message)}` };
        return { kind: 'failure', why: `uncaught exception in the pcapng reader: ${errorText(e)}` };
      }
    }
    let res;
    try {
      res = readPcap(input);
    } catch (e) {
      if (e instanceof PcapError) return e.message && !e.message.includes('\n') ? { kind: 'expected', why: e.message } : { kind: 'failure', why: `PcapError without a one-line message: ${JSON.stringify(e.message)}` };
      return { kind: 'failure', why: `uncaught exception: ${errorText(e)}` };
    }
    let bytes = 24;
    for (const [i, rec] of res.records.entries()) {
      bytes += 16 + rec.data.length;
      if (!(rec.nsec >= 0 && rec.nsec < 1e9 && Number.isInteger(rec.nsec))) return { kind: 'failure', why: `record ${i}: nsec ${rec.nsec}` };
      if (!Number.isFinite(rec.tsNs)) return { kind: 'failure', why: `record ${i}: tsNs ${rec.tsNs}` };
    }
    if (bytes !== input.length) return { kind: 'failure', why: `records cover ${bytes} of ${input.length} bytes` };
    // Round trip: what was read writes back to a file that reads the same.
    const again = readPcap(writePcap(res.records, { micro: false, snaplen: res.snaplen }));
    for (const [i, rec] of res.records.entries()) {
      const b = again.records[i];
      if (!b || b.sec !== rec.sec || b.nsec !== rec.nsec || b.origLen !== rec.origLen || bytesToHex(b.data) !== bytesToHex(rec.data)) return { kind: 'failure', why: `record ${i} changes on a write/read round trip` };
    }
    return { kind: 'ok' };
  },
  encode: (input) => bytesToHex(input) + '\n',
  decode: (file) => {
    const b = hexToBytes(file.trim());
    if (typeof b === 'string') throw new Error(b);
    return b;
  },
};
