/** The eBPF instruction set: opcodes, the one table, slot encoding, asm/disasm, validation. */
export * from './opcodes';
export * from './insn';
export * from './table';
export * from './spec';
export * from './disasm';
export * from './asm';
export * from './validate';
export * from './helper_names';
