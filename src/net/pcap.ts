/**
 * Classic libpcap files (not pcapng): read in either byte order with
 * microsecond or nanosecond timestamps, write little endian. Only the
 * Ethernet link type is accepted, because the simulated NIC receives
 * Ethernet frames; anything else is a PcapError naming what was found.
 */

export const PCAP_MAGIC_US = 0xa1b2c3d4;
export const PCAP_MAGIC_NS = 0xa1b23c4d;
export const LINKTYPE_ETHERNET = 1;

export interface PcapRecord {
  /** Timestamp: seconds since the epoch and nanoseconds within the second (exact). */
  sec: number;
  nsec: number;
  /** The same as one number of nanoseconds (not exact beyond 2^53 ns: use sec/nsec for differences). */
  tsNs: number;
  data: Uint8Array;
  /** Length on the wire (may exceed data.length when the capture was truncated by snaplen). */
  origLen: number;
}

export class PcapError extends Error {}

const LINKTYPE_NAMES: Record<number, string> = { 0: 'NULL (BSD loopback)', 101: 'RAW (IP)', 105: 'IEEE802_11', 113: 'LINUX_SLL', 127: 'IEEE802_11_RADIOTAP', 228: 'IPV4', 229: 'IPV6', 276: 'LINUX_SLL2' };

export function readPcap(bytes: Uint8Array): { records: PcapRecord[]; nanosecond: boolean; bigEndian: boolean; snaplen: number } {
  if (bytes.length < 24) throw new PcapError(`not a pcap file: ${bytes.length} bytes is shorter than the 24-byte header`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const le = dv.getUint32(0, true);
  const be = dv.getUint32(0, false);
  let little: boolean;
  let ns: boolean;
  if (le === PCAP_MAGIC_US || le === PCAP_MAGIC_NS) [little, ns] = [true, le === PCAP_MAGIC_NS];
  else if (be === PCAP_MAGIC_US || be === PCAP_MAGIC_NS) [little, ns] = [false, be === PCAP_MAGIC_NS];
  else if (le === 0x0a0d0d0a) throw new PcapError('pcapng files are not supported: save as classic pcap (editcap -F pcap)');
  else throw new PcapError(`not a pcap file: magic 0x${be.toString(16).padStart(8, '0')}`);
  const snaplen = dv.getUint32(16, little);
  const linktype = dv.getUint32(20, little) & 0x0fffffff; // high bits carry FCS info
  if (linktype !== LINKTYPE_ETHERNET) {
    const name = LINKTYPE_NAMES[linktype] ? ` (${LINKTYPE_NAMES[linktype]})` : '';
    throw new PcapError(`unsupported pcap link type ${linktype}${name}: only Ethernet (1) can be fed to the NIC`);
  }
  const records: PcapRecord[] = [];
  let off = 24;
  while (off < bytes.length) {
    if (off + 16 > bytes.length) throw new PcapError(`truncated record header at byte ${off} (record ${records.length + 1})`);
    const sec = dv.getUint32(off, little);
    const frac = dv.getUint32(off + 4, little);
    const inclLen = dv.getUint32(off + 8, little);
    const origLen = dv.getUint32(off + 12, little);
    if (!ns && frac >= 1_000_000) throw new PcapError(`record ${records.length + 1}: microsecond field ${frac} out of range`);
    // Found by the pcap fuzz target: a nanosecond field past a second made nsec ≥ 1e9.
    if (ns && frac >= 1_000_000_000) throw new PcapError(`record ${records.length + 1}: nanosecond field ${frac} out of range`);
    if (off + 16 + inclLen > bytes.length) throw new PcapError(`record ${records.length + 1} is truncated: ${inclLen} bytes announced, ${bytes.length - off - 16} present`);
    const nsec = ns ? frac : frac * 1000;
    records.push({ sec, nsec, tsNs: sec * 1e9 + nsec, data: bytes.slice(off + 16, off + 16 + inclLen), origLen });
    off += 16 + inclLen;
  }
  return { records, nanosecond: ns, bigEndian: !little, snaplen };
}

/** Write classic pcap, little endian; nanosecond resolution unless `micro`. */
export function writePcap(records: readonly { sec?: number; nsec?: number; tsNs?: number; data: Uint8Array; origLen?: number }[], opts: { micro?: boolean; snaplen?: number } = {}): Uint8Array {
  const total = 24 + records.reduce((a, r) => a + 16 + r.data.length, 0);
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, opts.micro ? PCAP_MAGIC_US : PCAP_MAGIC_NS, true);
  dv.setUint16(4, 2, true);
  dv.setUint16(6, 4, true);
  dv.setUint32(16, opts.snaplen ?? 262144, true);
  dv.setUint32(20, LINKTYPE_ETHERNET, true);
  let off = 24;
  for (const r of records) {
    const sec = r.sec ?? Math.floor((r.tsNs ?? 0) / 1e9);
    const fracNs = r.nsec ?? (r.tsNs ?? 0) - sec * 1e9;
    dv.setUint32(off, sec, true);
    dv.setUint32(off + 4, opts.micro ? Math.floor(fracNs / 1000) : Math.round(fracNs), true);
    dv.setUint32(off + 8, r.data.length, true);
    dv.setUint32(off + 12, r.origLen ?? r.data.length, true);
    out.set(r.data, off + 16);
    off += 16 + r.data.length;
  }
  return out;
}

/** The shortest frame a NIC hands up: an Ethernet header (BPF_PROG_TEST_RUN refuses less with EINVAL). */
export const ETH_HLEN = 14;

/**
 * The records a NIC could have received: those holding at least an Ethernet
 * header. Shorter ones (0-byte records included) are not frames; they are
 * counted so the caller can say how many were left out.
 */
export function wireRecords(records: PcapRecord[]): { records: PcapRecord[]; runts: number } {
  const kept = records.filter((r) => r.data.length >= ETH_HLEN);
  return { records: kept, runts: records.length - kept.length };
}

