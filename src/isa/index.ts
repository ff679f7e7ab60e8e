/** The eBPF instruction set: opcodes, the one table, slot encoding. */
export * from './opcodes';
export * from './insn';
export * from './table';
export * from './spec';
