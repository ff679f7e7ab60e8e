/** AF_XDP: the unaligned address encoding, the UMEM registration checks, and bad descriptors rejected and counted as the kernel does. */
import { describe, expect, it } from 'vitest';
import {
  checkUmemChunks,
  XdpUmem,
  xdp_umem_reg,
  XskQueue,
  xskq_cons_peek_desc,
  xskq_cons_read_addr,
  xsk_statistics,
  xsk_umem_encode_addr,
  xsk_umem_extract_addr,
  xsk_umem_extract_offset,
  xp_unaligned_add_offset_to_addr,
} from '../../src/sim/xsk';

const plain = (v: number) => ({ hi: Math.floor(v / 2 ** 32), lo: v % 2 ** 32 });

describe('unaligned address encoding (low 48 bits address, high 16 bits offset)', () => {
  it('round-trips base and offset, and adds them for the buffer start', () => {
    const a = xsk_umem_encode_addr(0x1234_5678_9abc, 256);
    expect(xsk_umem_extract_addr(a)).toBe(0x1234_5678_9abc);
    expect(xsk_umem_extract_offset(a)).toBe(256);
    expect(xp_unaligned_add_offset_to_addr(a)).toBe(0x1234_5678_9abc + 256);
    // The u64 as the ring stores it: offset in bits 63..48.
    expect(a.hi >>> 16).toBe(256);
    expect(a.hi & 0xffff).toBe(0x1234);
    expect(a.lo).toBe(0x5678_9abc);
  });
  it('refuses a base beyond 48 bits or an offset beyond 16', () => {
    expect(() => xsk_umem_encode_addr(2 ** 48, 0)).toThrow(/48 bits/);
    expect(() => xsk_umem_encode_addr(0, 1 << 16)).toThrow(/16 bits/);
  });
});

describe('XdpUmem.chunkOffset', () => {
  it('is v % chunk size for every address, by the low bits (power-of-two chunks) or not', () => {
    const vs = [0, 1, 2047, 2048, 2999, 3000, 4095, 4096, 0x7fff_ffff, 0x8000_0000, 0x8000_0fff, 0xffff_ffff, 2 ** 32, 2 ** 32 + 4097, 0x1234_5678_9abc, 2 ** 53 - 1];
    for (let i = 0; i < 200; i++) vs.push(Math.floor(((i * 2654435761) % 2 ** 32) * (i % 3 === 0 ? 4096 : 1)));
    for (const [chunkSize, unaligned] of [[2048, false], [4096, false], [2048, true], [3000, true]] as const) {
      const umem = new XdpUmem({ size: 1 << 20, chunkSize, headroom: 0, unaligned });
      for (const v of vs) expect(umem.chunkOffset(v), `${v} % ${chunkSize}`).toBe(v % chunkSize);
    }
  });
});

describe('UMEM registration', () => {
  it('takes 2048 and 4096 byte chunks; unaligned mode takes any size in range', () => {
    expect(xdp_umem_reg({ size: 1 << 20, chunkSize: 2048, headroom: 0, unaligned: false })).toEqual({ ok: true });
    expect(xdp_umem_reg({ size: 1 << 20, chunkSize: 4096, headroom: 256, unaligned: false })).toEqual({ ok: true });
    expect(xdp_umem_reg({ size: 1 << 20, chunkSize: 3000, headroom: 0, unaligned: false })).toMatchObject({ ok: false, message: expect.stringMatching(/not a power of two/) });
    expect(xdp_umem_reg({ size: 1 << 20, chunkSize: 3000, headroom: 0, unaligned: true })).toEqual({ ok: true });
    expect(xdp_umem_reg({ size: 1 << 20, chunkSize: 8192, headroom: 0, unaligned: false })).toMatchObject({ ok: false });
  });
});

describe('fill ring addresses (xp_check_aligned / xp_check_unaligned)', () => {
  it('aligned mode masks an address to its chunk and rejects one outside the UMEM', () => {
    const umem = new XdpUmem({ size: 16 * 2048, chunkSize: 2048, headroom: 0, unaligned: false });
    const fq = new XskQueue('fill', 8);
    fq.produceAddr(plain(2048 * 3 + 100));
    fq.produceAddr(plain(16 * 2048)); // one past the end
    fq.produceAddr(plain(2048 * 5));
    expect(xskq_cons_read_addr(fq, umem)).toBe(2048 * 3);
    expect(xskq_cons_read_addr(fq, umem)).toBe(2048 * 5);
    expect(fq.invalid_descs).toBe(1);
    expect(xskq_cons_read_addr(fq, umem)).toBe(-1);
  });
  it('unaligned mode: a chunk may cross a page boundary only into a contiguous page', () => {
    // 4 KiB pages; page 1 is not followed by a contiguous page (no hugepages there).
    const umem = new XdpUmem({ size: 4 * 4096, chunkSize: 2048, headroom: 0, unaligned: true, nextPageContig: (p) => p !== 1 });
    const fq = new XskQueue('fill', 8);
    fq.produceAddr(xsk_umem_encode_addr(4096 - 1000, 0)); // crosses page 0 -> 1: contiguous, fine
    fq.produceAddr(xsk_umem_encode_addr(2 * 4096 - 1000, 0)); // crosses page 1 -> 2: not contiguous
    fq.produceAddr(xsk_umem_encode_addr(4 * 4096 - 2048, 1)); // base fine, base + offset + chunk past the end
    fq.produceAddr(xsk_umem_encode_addr(8192, 300)); // base + offset inside one page
    expect(xskq_cons_read_addr(fq, umem)).toBe(4096 - 1000);
    expect(xskq_cons_read_addr(fq, umem)).toBe(8192 + 300);
    expect(fq.invalid_descs).toBe(2);
  });
});

describe('tx descriptors (xskq_cons_peek_desc): bad ones skipped and counted in tx_invalid_descs', () => {
  it('aligned: outside the UMEM, crossing its chunk, non-zero options', () => {
    const umem = new XdpUmem({ size: 16 * 2048, chunkSize: 2048, headroom: 0, unaligned: false });
    const tx = new XskQueue('tx', 8);
    tx.produceDesc(plain(16 * 2048), 64); // outside
    tx.produceDesc(plain(2048 + 2000), 64); // 2000 + 64 > 2048: crosses the chunk
    tx.produceDesc(plain(4096), 64, 1); // options
    tx.produceDesc(plain(4096 + 256), 60); // good
    const d = xskq_cons_peek_desc(tx, umem);
    expect(d).toMatchObject({ addr: 4096 + 256, len: 60 });
    expect(tx.invalid_descs).toBe(3);
    expect(xskq_cons_peek_desc(tx, umem)).toBeNull();
    const fq = new XskQueue('fill', 8);
    expect(xsk_statistics({ fq, rx: new XskQueue('rx', 8), tx, rxDropped: 0 })).toEqual({ rx_dropped: 0, rx_invalid_descs: 0, tx_invalid_descs: 3 });
  });
  it('unaligned: base + offset is the buffer; a bad offset puts it outside or across a non-contiguous page', () => {
    const umem = new XdpUmem({ size: 4 * 4096, chunkSize: 2048, headroom: 0, unaligned: true, nextPageContig: () => false });
    const tx = new XskQueue('tx', 8);
    tx.produceDesc(xsk_umem_encode_addr(4096, 60000), 64); // offset pushes it past the UMEM
    tx.produceDesc(xsk_umem_encode_addr(4096, 4000), 200); // 4096+4000..+200 crosses into page 2, not contiguous
    tx.produceDesc(xsk_umem_encode_addr(0, 0), 4000); // longer than a chunk
    tx.produceDesc(xsk_umem_encode_addr(4096, 4000), 64); // ends exactly at the page end: fine
    expect(xskq_cons_peek_desc(tx, umem)).toMatchObject({ addr: 8096, len: 64 });
    expect(tx.invalid_descs).toBe(3);
  });
});

describe('UMEM chunk conservation', () => {
  it('finds a chunk in two places and a chunk missing', () => {
    const umem = new XdpUmem({ size: 8 * 2048, chunkSize: 2048, headroom: 0, unaligned: false });
    const rings = { fq: new XskQueue('fill', 8), rx: new XskQueue('rx', 8), tx: new XskQueue('tx', 8), cq: new XskQueue('completion', 8) };
    rings.fq.produceAddr(plain(0));
    rings.rx.produceDesc(plain(2048 + 256), 60);
    expect(checkUmemChunks(umem, rings, { app: [4096] }, 3)).toEqual([]);
    rings.cq.produceAddr(plain(2048));
    expect(checkUmemChunks(umem, rings, { app: [4096] }, 3)[0]).toMatch(/chunk 1 is in two places: rx ring and completion ring/);
    expect(checkUmemChunks(umem, { ...rings, cq: new XskQueue('completion', 8) }, {}, 3)).toEqual(['UMEM: 3 chunks in use but 2 accounted for']);
  });
});

describe('where a UMEM address is in XdpUmem.data (xp_mem)', () => {
  it('aligned mode: each chunk contiguous, none overlapping, chunk starts spread over the 4 KiB cache colours; unaligned mode: the address', () => {
    for (const chunkSize of [2048, 4096]) {
      const umem = new XdpUmem({ size: 64 * chunkSize, chunkSize, headroom: 0, unaligned: false });
      const colours = new Set<number>();
      for (let c = 0; c < umem.chunks; c++) {
        const a = c * chunkSize;
        // Every byte of the chunk one after the other, and the whole chunk inside data.
        expect(umem.xp_mem(a + chunkSize - 1) - umem.xp_mem(a)).toBe(chunkSize - 1);
        expect(umem.xp_mem(a + chunkSize - 1)).toBeLessThan(umem.data.length);
        if (c > 0) expect(umem.xp_mem(a)).toBeGreaterThan(umem.xp_mem(a - 1));
        colours.add(umem.xp_mem(a + 256) % 4096);
      }
      // 64 chunks, 64 different offsets modulo 4 KiB for their frames' first bytes (end to end: 1 or 2).
      expect(colours.size).toBe(64);
    }
    const un = new XdpUmem({ size: 16 * 4096, chunkSize: 3000, headroom: 0, unaligned: true });
    for (const a of [0, 1, 2999, 3000, 4095, 4096, 16 * 4096 - 1]) expect(un.xp_mem(a)).toBe(a);
    expect(un.data.length).toBe(16 * 4096);
  });
});
