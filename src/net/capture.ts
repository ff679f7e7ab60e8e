/**
 * A capture file as the NIC can replay it: classic pcap (./pcap.ts) or
 * pcapng (./pcapng.ts: what Wireshark saves by default, and what the lab's
 * own xdpdump writes), Ethernet frames only. A pcapng's packets on an
 * interface that is not Ethernet are refused by name, as a pcap of another
 * link type is.
 */
import { PcapError, readPcap, type PcapRecord } from './pcap';
import { PCAPNG_SHB, readPcapng } from './pcapng';

const LINKTYPE_ETHERNET = 1;

export function readCapture(bytes: Uint8Array): { records: PcapRecord[]; format: 'pcap' | 'pcapng' } {
  if (bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === PCAPNG_SHB) {
    const r = readPcapng(bytes);
    const records: PcapRecord[] = [];
    for (const p of r.packets) {
      const link = r.interfaces[p.iface]?.linkType;
      if (link !== LINKTYPE_ETHERNET) throw new PcapError(`pcapng interface ${p.iface} has link type ${link}: only Ethernet (1) can be fed to the NIC`);
      const sec = Math.floor(p.tsNs / 1e9);
      records.push({ sec, nsec: p.tsNs - sec * 1e9, tsNs: p.tsNs, data: p.data, origLen: p.origLen });
    }
    return { records, format: 'pcapng' };
  }
  return { records: readPcap(bytes).records, format: 'pcap' };
}
