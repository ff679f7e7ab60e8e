/**
 * What libbpf would do with clang's object file, as far as the compiler
 * differential tests need it: find the XDP program in its ELF section,
 * append the subprograms of .text and fix the bpf-to-bpf call offsets,
 * find the map definitions (BTF-style in .maps, read through .BTF; legacy
 * struct bpf_map_def in "maps"; a map-in-map's inner template from its
 * `values` member, named NAME.inner, and its initial slots from .maps'
 * relocations) and turn map relocations into the spec's map_relocs; the
 * test_loader tags of the kernel selftests (readDeclTags). extractObject reads a whole object (every XDP program, global
 * data as internal maps with BPF_PSEUDO_MAP_VALUE relocations). Shared by the
 * compiler differential tests and `xdp-lab bench cc`; it reads object files
 * written by clang-19 (see ./clang.ts).
 */
import type { KfuncReloc, MapReloc, MapSpec, MapType, ProgramSpec } from '../isa/spec';
import { isMapInMap, MAP_TYPES } from '../isa/spec';
import { isTypelessSection, isXdpSection } from '../cc/object';

export interface Section { name: string; type: number; offset: number; size: number; link: number; info: number; entsize: number; data: Uint8Array }
export interface ElfSym { name: string; value: number; size: number; shndx: number; type: number; bind: number }

const SHT_SYMTAB = 2, SHT_REL = 9;
const STT_SECTION = 3, STT_FUNC = 2;
const R_BPF_64_64 = 1, R_BPF_64_32 = 10;

function cstr(b: Uint8Array, off: number): string {
  let e = off;
  while (e < b.length && b[e] !== 0) e++;
  return new TextDecoder().decode(b.subarray(off, e));
}

export interface ElfProgram {
  insns: Uint8Array;
  maps: MapSpec[];
  map_relocs: { insn: number; map: number }[];
  progName: string;
}

export function readElf(buf: Uint8Array): { sections: Section[]; syms: ElfSym[] } {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (dv.getUint32(0, false) !== 0x7f454c46) throw new Error('not an ELF file');
  const shoff = Number(dv.getBigUint64(0x28, true));
  const shentsize = dv.getUint16(0x3a, true);
  const shnum = dv.getUint16(0x3c, true);
  const shstrndx = dv.getUint16(0x3e, true);
  const raw = [];
  for (let i = 0; i < shnum; i++) {
    const p = shoff + i * shentsize;
    raw.push({
      nameOff: dv.getUint32(p, true), type: dv.getUint32(p + 4, true), offset: Number(dv.getBigUint64(p + 24, true)),
      size: Number(dv.getBigUint64(p + 32, true)), link: dv.getUint32(p + 40, true), info: dv.getUint32(p + 44, true), entsize: Number(dv.getBigUint64(p + 56, true)),
    });
  }
  const shstr = buf.subarray(raw[shstrndx]!.offset, raw[shstrndx]!.offset + raw[shstrndx]!.size);
  const sections: Section[] = raw.map((s) => ({ ...s, name: cstr(shstr, s.nameOff), data: s.type === 8 ? new Uint8Array(s.size) : buf.subarray(s.offset, s.offset + s.size) }));
  const symtab = sections.find((s) => s.type === SHT_SYMTAB);
  const syms: ElfSym[] = [];
  if (symtab) {
    const strtab = sections[symtab.link]!.data;
    const sd = new DataView(symtab.data.buffer, symtab.data.byteOffset, symtab.data.byteLength);
    for (let p = 0; p + 24 <= symtab.data.length; p += 24) {
      const info = sd.getUint8(p + 4);
      syms.push({ name: cstr(strtab, sd.getUint32(p, true)), type: info & 0xf, bind: info >> 4, shndx: sd.getUint16(p + 6, true), value: Number(sd.getBigUint64(p + 8, true)), size: Number(sd.getBigUint64(p + 16, true)) });
    }
  }
  return { sections, syms };
}

interface BtfType { kind: number; name: string; vlen: number; sizeOrType: number; extra: DataView; members?: { name: string; type: number; bitOffset: number }[]; nelems?: number; elemType?: number; vars?: { type: number; offset: number; size: number }[] }

function readBtf(data: Uint8Array): BtfType[] {
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const hdrLen = dv.getUint32(4, true);
  const typeOff = dv.getUint32(8, true), typeLen = dv.getUint32(12, true), strOff = dv.getUint32(16, true), strLen = dv.getUint32(20, true);
  const strs = data.subarray(hdrLen + strOff, hdrLen + strOff + strLen);
  const types: BtfType[] = [{ kind: 0, name: 'void', vlen: 0, sizeOrType: 0, extra: dv }];
  let p = hdrLen + typeOff;
  const end = p + typeLen;
  while (p < end) {
    const nameOff = dv.getUint32(p, true), info = dv.getUint32(p + 4, true), st = dv.getUint32(p + 8, true);
    const kind = (info >>> 24) & 0x1f, vlen = info & 0xffff;
    p += 12;
    const t: BtfType = { kind, name: cstr(strs, nameOff), vlen, sizeOrType: st, extra: dv };
    switch (kind) {
      case 1: p += 4; break; // INT
      case 3: t.elemType = dv.getUint32(p, true); t.nelems = dv.getUint32(p + 8, true); p += 12; break; // ARRAY
      case 4: case 5: {
        // With kind_flag set, a member's offset word holds the bitfield size above its low 24 bits.
        const kindFlag = (info >>> 31) !== 0;
        t.members = [];
        for (let i = 0; i < vlen; i++) {
          const off = dv.getUint32(p + 8, true);
          t.members.push({ name: cstr(strs, dv.getUint32(p, true)), type: dv.getUint32(p + 4, true), bitOffset: kindFlag ? off & 0xffffff : off });
          p += 12;
        }
        break;
      }
      case 6: p += 8 * vlen; break; // ENUM
      case 13: p += 8 * vlen; break; // FUNC_PROTO
      case 14: p += 4; break; // VAR
      case 15: t.vars = []; for (let i = 0; i < vlen; i++) { t.vars.push({ type: dv.getUint32(p, true), offset: dv.getUint32(p + 4, true), size: dv.getUint32(p + 8, true) }); p += 12; } break;
      case 17: p += 4; break; // DECL_TAG
      case 19: p += 12 * vlen; break; // ENUM64
      default: break; // PTR, FWD, TYPEDEF, VOLATILE, CONST, RESTRICT, FUNC, FLOAT, TYPE_TAG: no extra data
    }
    types.push(t);
  }
  return types;
}

function btfSize(types: BtfType[], id: number, depth = 0): number {
  const t = types[id];
  if (!t || depth > 20) return 0;
  switch (t.kind) {
    case 1: case 4: case 5: case 6: case 19: return t.sizeOrType;
    case 2: return 8;
    case 3: return (t.nelems ?? 0) * btfSize(types, t.elemType!, depth + 1);
    case 8: case 9: case 10: case 11: case 18: return btfSize(types, t.sizeOrType, depth + 1);
    default: return 0;
  }
}

function skipMods(types: BtfType[], id: number): number {
  let t = types[id];
  while (t && [8, 9, 10, 11, 18].includes(t.kind)) { id = t.sizeOrType; t = types[id]; }
  return id;
}

const TYPE_BY_ID = new Map<number, MapType>(Object.entries(MAP_TYPES).map(([k, v]) => [v, k as MapType]));

/**
 * Maps by symbol name, from .maps (through BTF) and the legacy "maps" section.
 * A map of a type we do not know throws, unless `unsupported` is given: then
 * it is reported there by name and left out.
 */
export function readMaps(sections: Section[], syms: ElfSym[], unsupported?: (name: string, type: number) => void): Map<string, MapSpec> {
  const out = new Map<string, MapSpec>();
  const btfSec = sections.find((s) => s.name === '.BTF');
  const mapsIdx = sections.findIndex((s) => s.name === '.maps');
  if (btfSec && mapsIdx >= 0) {
    const types = readBtf(btfSec.data);
    const datasec = types.find((t) => t.kind === 15 && t.name === '.maps');
    /** parse_btf_map_def: one map definition struct (an outer map's `values` element type for its inner template). */
    const readDef = (name: string, st: BtfType, inner: boolean): MapSpec | undefined => {
      const field = (n: string): number | undefined => st.members?.find((m) => m.name === n)?.type;
      const arrLen = (n: string): number | undefined => {
        const f = field(n);
        if (f === undefined) return undefined;
        const ptr = types[skipMods(types, f)]!;
        const arr = types[skipMods(types, ptr.sizeOrType)]!;
        return arr.nelems;
      };
      const pointee = (n: string): number | undefined => {
        const f = field(n);
        if (f === undefined) return undefined;
        return btfSize(types, types[skipMods(types, f)]!.sizeOrType);
      };
      const type = TYPE_BY_ID.get(arrLen('type') ?? -1);
      // An inner template of a type XDP Lab has no maps of leaves its outer map without one (linkMapInMaps says so).
      if (!type && inner) return undefined;
      if (!type && unsupported) {
        unsupported(name, arrLen('type') ?? -1);
        return undefined;
      }
      if (!type) throw new Error(`map ${name}: unsupported type`);
      let keySize = pointee('key') ?? arrLen('key_size');
      let valueSize = pointee('value') ?? arrLen('value_size');
      if (keySize === undefined && ['devmap', 'devmap_hash', 'cpumap', 'xskmap'].includes(type)) keySize = 4;
      if (valueSize === undefined && ['devmap', 'devmap_hash', 'cpumap', 'xskmap'].includes(type)) valueSize = 4;
      // __array(values, T): libbpf makes a map-in-map's value an fd (4 bytes) and reads its inner template from T.
      const values = field('values');
      let template: MapSpec | undefined;
      if (values !== undefined && isMapInMap(type)) {
        valueSize = 4;
        const arr = types[skipMods(types, values)]!;
        const ptr = types[skipMods(types, arr.elemType ?? 0)]!;
        const def = types[skipMods(types, ptr.sizeOrType)]!;
        if (!inner && def.kind === 4) template = readDef(`${name}.inner`, def, true);
      }
      const spec: MapSpec = { name, type, key_size: keySize ?? 0, value_size: valueSize ?? 0, max_entries: arrLen('max_entries') ?? 0 };
      const flags = arrLen('map_flags');
      if (flags) spec.flags = flags;
      // __uint(map_extra, N): a bloom filter's hash count, as libbpf reads it from the BTF map definition.
      const mapExtra = arrLen('map_extra');
      if (mapExtra) spec.map_extra = mapExtra;
      if (inner) return spec;
      out.set(name, spec);
      // The template right after its outer map, named as our compiler names it (linkMapInMaps sets inner_map).
      if (template) out.set(template.name!, template);
      return spec;
    };
    for (const v of datasec?.vars ?? []) {
      const varT = types[v.type]!;
      readDef(varT.name, types[skipMods(types, varT.sizeOrType)]!, false);
    }
  }
  const legacyIdx = sections.findIndex((s) => s.name === 'maps');
  if (legacyIdx >= 0) {
    const d = sections[legacyIdx]!.data;
    const dv = new DataView(d.buffer, d.byteOffset, d.byteLength);
    for (const s of syms) {
      if (s.shndx !== legacyIdx || s.type === STT_SECTION) continue;
      const type = TYPE_BY_ID.get(dv.getUint32(s.value, true));
      if (!type && unsupported) {
        unsupported(s.name, dv.getUint32(s.value, true));
        continue;
      }
      if (!type) throw new Error(`map ${s.name}: unsupported type`);
      const spec: MapSpec = { name: s.name, type, key_size: dv.getUint32(s.value + 4, true), value_size: dv.getUint32(s.value + 8, true), max_entries: dv.getUint32(s.value + 12, true) };
      const flags = dv.getUint32(s.value + 16, true);
      if (flags) spec.flags = flags;
      out.set(s.name, spec);
    }
  }
  return out;
}

const SHT_PROGBITS = 1;

/**
 * The sections holding the object's XDP programs: the xdp ones (xdp,
 * xdp.frags, xdp/…); without any, the sections libbpf gives no program
 * type that hold a global function (SEC("prog")): the loader makes them XDP
 * (bpftool prog load … type xdp), as our compiler does (src/cc/object.ts).
 */
function xdpSections(sections: Section[], syms: ElfSym[]): number[] {
  const withCode = (i: number) => sections[i]!.size > 0 && sections[i]!.type === SHT_PROGBITS;
  const xdp = sections.flatMap((s, i) => (isXdpSection(s.name) && withCode(i) ? [i] : []));
  if (xdp.length) return xdp;
  return sections.flatMap((s, i) => (isTypelessSection(s.name) && withCode(i) && syms.some((y) => y.shndx === i && y.type === STT_FUNC && y.bind === 1) ? [i] : []));
}

/**
 * BTF declaration tags on functions (btf_decl_tag), by function name, in
 * the order clang wrote them: the kernel selftests' test_loader reads its
 * expectations from them (bpf_misc.h's __success, __failure, __msg, …).
 */
export function readDeclTags(sections: Section[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const btfSec = sections.find((s) => s.name === '.BTF');
  if (!btfSec) return out;
  const types = readBtf(btfSec.data);
  for (const t of types) {
    const target = t.kind === 17 ? types[t.sizeOrType] : undefined;
    // BTF_KIND_FUNC (12): a tag on the function itself.
    if (!target || target.kind !== 12) continue;
    const list = out.get(target.name) ?? [];
    list.push(t.name);
    out.set(target.name, list);
  }
  return out;
}

/**
 * The inner maps a map-in-map definition is initialised with
 * (`.values = { [i] = &map }`): clang leaves them as relocations in .maps
 * against the inner maps' symbols, at the outer map's `values` member
 * plus 8 bytes a slot (libbpf's bpf_object__collect_map_relos). Slots by
 * outer map name.
 */
export function readMapInMapSlots(sections: Section[], syms: ElfSym[]): Map<string, { slot: number; inner: string }[]> {
  const out = new Map<string, { slot: number; inner: string }[]>();
  const btfSec = sections.find((s) => s.name === '.BTF');
  const mapsIdx = sections.findIndex((s) => s.name === '.maps');
  if (!btfSec || mapsIdx < 0) return out;
  const types = readBtf(btfSec.data);
  const datasec = types.find((t) => t.kind === 15 && t.name === '.maps');
  // Each map variable's place in .maps and where its `values` member starts in it.
  const vars = (datasec?.vars ?? []).flatMap((v) => {
    const varT = types[v.type]!;
    const st = types[skipMods(types, varT.sizeOrType)]!;
    const values = st.members?.find((m) => m.name === 'values');
    // Where the variable lies in .maps: its symbol says (the DATASEC offsets in clang's object may be 0 until libbpf fixes them up).
    const at = syms.find((x) => x.shndx === mapsIdx && x.name === varT.name)?.value ?? v.offset;
    return values ? [{ name: varT.name, values: at + values.bitOffset / 8 }] : [];
  });
  // The flexible `values` array's initialiser lies past the struct's BTF size: a slot belongs to the last map starting before it.
  vars.sort((a, b) => b.values - a.values);
  for (const rs of sections) {
    if (rs.type !== SHT_REL || rs.info !== mapsIdx) continue;
    const dv = new DataView(rs.data.buffer, rs.data.byteOffset, rs.data.byteLength);
    for (let p = 0; p + 16 <= rs.data.length; p += 16) {
      const off = Number(dv.getBigUint64(p, true));
      const sym = syms[Number(dv.getBigUint64(p + 8, true) >> 32n)];
      const v = vars.find((x) => off >= x.values);
      if (!v || !sym || sym.shndx !== mapsIdx) continue;
      const list = out.get(v.name) ?? [];
      list.push({ slot: (off - v.values) / 8, inner: sym.name });
      out.set(v.name, list);
    }
  }
  return out;
}

/**
 * A map-in-map's spec as the VM takes it, once the maps are in their final
 * order: inner_map is the index of its template (`NAME.inner`), and each
 * initial slot an init entry whose key is the slot (libbpf updates key i,
 * an int) and whose value is the inner map's index.
 */
export function linkMapInMaps(maps: MapSpec[], slots: Map<string, { slot: number; inner: string }[]>): string[] {
  const problems: string[] = [];
  const index = new Map(maps.map((m, i) => [m.name, i]));
  const u32 = (n: number): string => bytesToHexLocal(new Uint8Array([n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24]));
  for (const m of maps) {
    if (m.type !== 'array_of_maps' && m.type !== 'hash_of_maps') continue;
    const t = index.get(`${m.name}.inner`);
    if (t === undefined) problems.push(`map-in-map '${m.name}' without an inner map definition (__array(values, struct { ... }))`);
    else m.inner_map = t;
    const init = (slots.get(m.name ?? '') ?? []).flatMap(({ slot, inner }) => {
      const i = index.get(inner);
      if (i === undefined) problems.push(`map-in-map '${m.name}': slot ${slot} holds '${inner}', which is not among the maps`);
      return i === undefined ? [] : [{ key: u32(slot), value: u32(i) }];
    });
    if (init.length) m.init = init;
  }
  return problems;
}

/**
 * The XDP program of a clang object, linked as libbpf links it. `mapOrder`
 * gives the map names in the order our compiler numbered them, so both
 * programs see the same map at the same index.
 */
export function extractProgram(buf: Uint8Array, mapOrder: string[]): ElfProgram {
  const { sections, syms } = readElf(buf);
  const progIdx = xdpSections(sections, syms)[0] ?? -1;
  if (progIdx < 0) throw new Error('no xdp section');
  const progSec = sections[progIdx]!;
  const progSym = syms.find((s) => s.shndx === progIdx && s.type === STT_FUNC);
  const textIdx = sections.findIndex((s) => s.name === '.text');
  const start = progSym?.value ?? 0;
  const len = progSym?.size || progSec.size;
  const prog = progSec.data.slice(start, start + len);
  const text = textIdx >= 0 ? sections[textIdx]!.data : new Uint8Array(0);
  const rels = (target: number): { off: number; sym: ElfSym; type: number }[] => {
    const r: { off: number; sym: ElfSym; type: number }[] = [];
    for (const s of sections) {
      if (s.type !== SHT_REL || s.info !== target) continue;
      const dv = new DataView(s.data.buffer, s.data.byteOffset, s.data.byteLength);
      for (let p = 0; p + 16 <= s.data.length; p += 16) {
        const info = dv.getBigUint64(p + 8, true);
        r.push({ off: Number(dv.getBigUint64(p, true)), sym: syms[Number(info >> 32n)]!, type: Number(info & 0xffffffffn) });
      }
    }
    return r;
  };
  const progRels = rels(progIdx).filter((r) => r.off >= start && r.off < start + len).map((r) => ({ ...r, off: r.off - start }));
  const textRels = textIdx >= 0 ? rels(textIdx) : [];
  const needText = progRels.some((r) => r.type === R_BPF_64_32 && r.sym.shndx === textIdx);
  const progSlots = prog.length / 8;
  const all = new Uint8Array(prog.length + (needText ? text.length : 0));
  all.set(prog, 0);
  if (needText) all.set(text, prog.length);
  const dv = new DataView(all.buffer);
  const maps = readMaps(sections, syms);
  const relocs: { insn: number; map: number }[] = [];
  const mapIndex = new Map(mapOrder.map((n, i) => [n, i]));
  const extraMaps: MapSpec[] = [];
  const apply = (slotBase: number, r: { off: number; sym: ElfSym; type: number }): void => {
    const idx = slotBase + r.off / 8;
    const p = idx * 8;
    if (r.type === R_BPF_64_64) {
      let name = r.sym.name;
      if (r.sym.type === STT_SECTION) {
        // Relocation against the section: the map at the addend (imm) offset.
        const off = dv.getInt32(p + 4, true);
        name = syms.find((s) => s.shndx === r.sym.shndx && s.value === off && s.type !== STT_SECTION)?.name ?? name;
      }
      let mi = mapIndex.get(name);
      if (mi === undefined) {
        const m = maps.get(name);
        if (!m) throw new Error(`relocation to unknown map ${name}`);
        mi = mapOrder.length + extraMaps.length;
        extraMaps.push(m);
        mapIndex.set(name, mi);
      }
      dv.setUint8(p + 1, (dv.getUint8(p + 1) & 0x0f) | 0x10);
      dv.setInt32(p + 4, 0, true);
      relocs.push({ insn: idx, map: mi });
    } else if (r.type === R_BPF_64_32) {
      if (r.sym.shndx !== textIdx) throw new Error('call into a section other than .text');
      const imm = dv.getInt32(p + 4, true);
      const target = progSlots + r.sym.value / 8 + imm + 1;
      dv.setInt32(p + 4, target - (idx + 1), true);
    }
  };
  for (const r of progRels) apply(0, r);
  if (needText) for (const r of textRels) apply(progSlots, r);
  const ordered = mapOrder.map((n) => {
    const m = maps.get(n);
    if (!m) throw new Error(`clang's object has no map ${n}`);
    return m;
  });
  const allMaps = [...ordered, ...extraMaps];
  const problems = linkMapInMaps(allMaps, readMapInMapSlots(sections, syms));
  if (problems.length) throw new Error(problems[0]);
  return { insns: all, maps: allMaps, map_relocs: relocs, progName: progSym?.name ?? progSec.name };
}

const BPF_PSEUDO_MAP_FD = 1, BPF_PSEUDO_MAP_VALUE = 2, BPF_PSEUDO_KFUNC_CALL = 2, BPF_PSEUDO_FUNC = 4;

/** Sections libbpf turns into internal array maps (global data). */
function isDataSection(name: string): boolean {
  return name === '.data' || name === '.bss' || name === '.rodata' || name.startsWith('.rodata.') || name.startsWith('.data.');
}

export interface ElfObject {
  /** The first XDP program, with the others in `programs`, over one maps array: a spec as src/isa/spec.ts shapes it. */
  spec: ProgramSpec;
  /** What libbpf could do but the oracle cannot (map-in-map, kfunc calls), if anything. */
  unsupported: string[];
}

/**
 * The whole object as libbpf loads it: every program in an xdp* section
 * (the first one is the entry, the rest go to `programs` for tail calls),
 * .text subprograms appended where called, the maps of .maps and the
 * legacy "maps" section, and one internal array map per global data
 * section (.data, .bss, .rodata*; value = the section's bytes, .rodata
 * frozen) addressed by BPF_PSEUDO_MAP_VALUE relocations.
 */
export function extractObject(buf: Uint8Array): ElfObject {
  const { sections, syms } = readElf(buf);
  const unsupported: string[] = [];
  const textIdx = sections.findIndex((s) => s.name === '.text');
  // A map of a type we do not support that only the object's other programs use (a reuseport sockarray) is
  // left out, as our compiler leaves it out; an XDP program's relocation to it refuses the object below.
  const leftOut = new Set<string>();
  const named = readMaps(sections, syms, (name) => leftOut.add(name));
  const maps: MapSpec[] = [];
  const mapIndex = new Map<string, number>();
  for (const [name, m] of named) {
    mapIndex.set(name, maps.length);
    maps.push(m);
  }
  // The oracle cannot create map-in-maps (XDP Lab's VM can): callers that hand the spec to the oracle learn it here.
  for (const m of maps) if (isMapInMap(m.type)) unsupported.push(`map-in-map '${m.name}'`);
  unsupported.push(...linkMapInMaps(maps, readMapInMapSlots(sections, syms)));
  const dataIndex = new Map<number, number>();
  sections.forEach((s, i) => {
    if (!isDataSection(s.name) || s.size === 0) return;
    const ro = s.name.startsWith('.rodata');
    const value = s.type === 8 ? new Uint8Array(s.size) : s.data;
    const m: MapSpec = { name: s.name, type: 'array', key_size: 4, value_size: s.size, max_entries: 1, internal: s.name, init: [{ key: '00000000', value: bytesToHexLocal(value) }] };
    if (ro) { m.flags = 0x80; m.freeze = true; } // BPF_F_RDONLY_PROG, frozen as libbpf does
    dataIndex.set(i, maps.length);
    maps.push(m);
  });
  const rels = (target: number): { off: number; sym: ElfSym; type: number }[] => {
    const r: { off: number; sym: ElfSym; type: number }[] = [];
    for (const s of sections) {
      if (s.type !== SHT_REL || s.info !== target) continue;
      const dv = new DataView(s.data.buffer, s.data.byteOffset, s.data.byteLength);
      for (let p = 0; p + 16 <= s.data.length; p += 16) {
        const info = dv.getBigUint64(p + 8, true);
        r.push({ off: Number(dv.getBigUint64(p, true)), sym: syms[Number(info >> 32n)]!, type: Number(info & 0xffffffffn) });
      }
    }
    return r;
  };
  const text = textIdx >= 0 ? sections[textIdx]!.data : new Uint8Array(0);
  const textRels = textIdx >= 0 ? rels(textIdx) : [];
  // .text functions by slot: libbpf appends only the subprograms a program reaches.
  const textFuncs = syms.filter((s) => s.shndx === textIdx && s.type === STT_FUNC).map((s) => ({ start: s.value / 8, end: (s.value + s.size) / 8 })).sort((a, b) => a.start - b.start);
  const programs: { name: string; section: string; insns: string; map_relocs: MapReloc[]; kfunc_relocs?: KfuncReloc[] }[] = [];
  const xdp = new Set(xdpSections(sections, syms));
  sections.forEach((sec, si) => {
    if (!xdp.has(si)) return;
    const secRels = rels(si);
    const funcs = syms.filter((s) => s.shndx === si && s.type === STT_FUNC && s.bind === 1).sort((a, b) => a.value - b.value);
    for (const f of funcs) {
      const len = f.size || sec.size - f.value;
      const chunks: Uint8Array[] = [sec.data.slice(f.value, f.value + len)];
      let total = len / 8;
      const placed = new Map<number, number>(); // .text function start slot -> its slot in the program
      const relocs: MapReloc[] = [];
      const kfuncs: KfuncReloc[] = [];
      // Segments to relocate: the program itself, then each appended .text function.
      const work: { base: number; bytes: Uint8Array; textStart?: number; rels: { off: number; sym: ElfSym; type: number }[] }[] = [];
      work.push({ base: 0, bytes: chunks[0]!, rels: secRels.filter((r) => r.off >= f.value && r.off < f.value + len).map((r) => ({ ...r, off: r.off - f.value })) });
      const place = (target: number): number => {
        const fn = textFuncs.find((t) => target >= t.start && target < t.end);
        if (!fn) throw new Error(`call into .text at slot ${target}, outside any function`);
        let at = placed.get(fn.start);
        if (at === undefined) {
          at = total;
          placed.set(fn.start, at);
          const bytes = text.slice(fn.start * 8, fn.end * 8);
          chunks.push(bytes);
          total += fn.end - fn.start;
          work.push({ base: at, bytes, textStart: fn.start, rels: textRels.filter((r) => r.off >= fn.start * 8 && r.off < fn.end * 8).map((r) => ({ ...r, off: r.off - fn.start * 8 })) });
        }
        return at + (target - fn.start);
      };
      for (let w = 0; w < work.length; w++) {
        const seg = work[w]!;
        const dv = new DataView(seg.bytes.buffer, seg.bytes.byteOffset, seg.bytes.byteLength);
        for (const r of seg.rels) {
          const p = r.off;
          const idx = seg.base + r.off / 8;
          if (r.type === R_BPF_64_64 && r.sym.shndx === textIdx && textIdx >= 0) {
            // A function's address (bpf_loop's callback): libbpf appends the function and makes the lddw
            // BPF_PSEUDO_FUNC, imm its offset from the next slot. The addend (imm) is in bytes.
            const target = (r.sym.type === STT_SECTION ? 0 : r.sym.value / 8) + dv.getInt32(p + 4, true) / 8;
            dv.setUint8(p + 1, (dv.getUint8(p + 1) & 0x0f) | (BPF_PSEUDO_FUNC << 4));
            dv.setInt32(p + 4, place(target) - (idx + 1), true);
            continue;
          }
          if (r.type === R_BPF_64_64) {
            const data = dataIndex.get(r.sym.shndx);
            if (data !== undefined) {
              const offset = r.sym.value + dv.getInt32(p + 4, true);
              dv.setUint8(p + 1, (dv.getUint8(p + 1) & 0x0f) | (BPF_PSEUDO_MAP_VALUE << 4));
              dv.setInt32(p + 4, 0, true);
              relocs.push({ insn: idx, map: data, kind: 'value', offset });
              continue;
            }
            let name = r.sym.name;
            if (r.sym.type === STT_SECTION) {
              const off = dv.getInt32(p + 4, true);
              name = syms.find((s) => s.shndx === r.sym.shndx && s.value === off && s.type !== STT_SECTION)?.name ?? name;
            }
            const mi = mapIndex.get(name);
            if (mi === undefined) throw new Error(leftOut.has(name) ? `map ${name}: unsupported type` : `relocation to unknown map or symbol ${name}`);
            dv.setUint8(p + 1, (dv.getUint8(p + 1) & 0x0f) | (BPF_PSEUDO_MAP_FD << 4));
            dv.setInt32(p + 4, 0, true);
            relocs.push({ insn: idx, map: mi });
          } else if (r.type === R_BPF_64_32) {
            if (r.sym.shndx === 0) {
              // A kfunc (an __ksym extern): libbpf puts the kernel's BTF id in imm; the VM binds it by name.
              unsupported.push(`kfunc call '${r.sym.name}'`);
              dv.setUint8(p + 1, (dv.getUint8(p + 1) & 0x0f) | (BPF_PSEUDO_KFUNC_CALL << 4));
              dv.setInt32(p + 4, 0, true);
              kfuncs.push({ insn: idx, name: r.sym.name });
              continue;
            }
            if (r.sym.shndx !== textIdx) throw new Error('call into a section other than .text');
            const imm = dv.getInt32(p + 4, true);
            const target = (r.sym.type === STT_SECTION ? 0 : r.sym.value / 8) + imm + 1;
            dv.setInt32(p + 4, place(target) - (idx + 1), true);
          }
        }
        // Calls between .text functions the assembler resolved itself (no relocation): pc-relative within .text.
        if (seg.textStart !== undefined) {
          const relocated = new Set(seg.rels.map((r) => r.off));
          for (let p = 0; p + 8 <= seg.bytes.length; p += 8) {
            if (dv.getUint8(p) !== 0x85 || (dv.getUint8(p + 1) >> 4) !== 1 || relocated.has(p)) continue;
            const target = seg.textStart + p / 8 + dv.getInt32(p + 4, true) + 1;
            dv.setInt32(p + 4, place(target) - (seg.base + p / 8 + 1), true);
          }
        }
      }
      const all = new Uint8Array(total * 8);
      let o = 0;
      for (const c of chunks) { all.set(c, o); o += c.length; }
      programs.push({ name: f.name, section: sec.name, insns: bytesToHexLocal(all), map_relocs: relocs.sort((a, b) => a.insn - b.insn), ...(kfuncs.length ? { kfunc_relocs: kfuncs } : {}) });
    }
  });
  if (programs.length === 0) throw new Error('no xdp program in the object');
  const [entry, ...others] = programs;
  const spec: ProgramSpec = { prog_type: 'xdp', insns: entry!.insns, maps, map_relocs: entry!.map_relocs, section: entry!.section, funcs: [{ name: entry!.name, insn: 0 }] };
  if (entry!.kfunc_relocs) spec.kfunc_relocs = entry!.kfunc_relocs;
  if (others.length) spec.programs = others;
  return { spec, unsupported: [...new Set(unsupported)] };
}

function bytesToHexLocal(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}
