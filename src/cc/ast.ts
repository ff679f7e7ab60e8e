/**
 * The typed syntax tree. The parser builds it and sema (sema.ts) gives
 * every expression its C type as it is built, inserting the implicit
 * conversions (array decay, integer promotion, usual arithmetic
 * conversions) as explicit cast nodes, so codegen never guesses.
 */
import type { Span } from './diagnostics';
import type { FuncType, Member, Type } from './types';

export interface Attrs {
  section?: string;
  alwaysInline?: boolean;
  noinline?: boolean;
  packed?: boolean;
  aligned?: number;
}

let symIds = 0;
export function nextSymId(): number {
  return ++symIds;
}

export interface Sym {
  id: number;
  kind: 'var' | 'func' | 'typedef' | 'enumconst';
  name: string;
  type: Type;
  span: Span;
  global: boolean;
  isStatic?: boolean;
  isExtern?: boolean;
  isInline?: boolean;
  /** The object itself is const / volatile (`const volatile int knob`; not a pointer to const). */
  isConst?: boolean;
  isVolatile?: boolean;
  /** A pointer declared to volatile (`volatile struct ethhdr *eh`): its loads are never merged. */
  pointsToVolatile?: boolean;
  attrs: Attrs;
  /** &x or an aggregate: must live in memory. */
  addressTaken?: boolean;
  /** enum constants. */
  value?: bigint;
  /** Global variables: initializer. */
  init?: Init;
  /** Functions: parameters and body once defined. */
  params?: Sym[];
  body?: Stmt;
  /** Functions: the order in which bodies were defined (a prototype may come first). */
  defIndex?: number;
  /** Helpers: `static T (*bpf_x)(...) = (void *) ID;`. */
  helperId?: number;
  /** A read of this variable was seen (unused-variable warnings). */
  used?: boolean;
  /**
   * Made by cse.ts to hold one load's value, assigned once from the load: an
   * unsigned value of 32 bits or fewer is zero-extended in its register, as
   * the load left it, and is copied with 64-bit moves, so the ctx->data it
   * may hold stays the kernel's packet pointer (a 32-bit move makes it a scalar).
   */
  loadCopy?: boolean;
}

export type Expr =
  | { k: 'num'; value: bigint; ty: Type; span: Span }
  | { k: 'str'; bytes: number[]; ty: Type; span: Span }
  | { k: 'var'; sym: Sym; ty: Type; span: Span }
  | { k: 'unary'; op: '-' | '~' | '!'; e: Expr; ty: Type; span: Span }
  | { k: 'deref'; e: Expr; ty: Type; span: Span }
  | { k: 'addr'; e: Expr; ty: Type; span: Span }
  | { k: 'binary'; op: BinOp; l: Expr; r: Expr; ty: Type; span: Span }
  | { k: 'logical'; op: '&&' | '||'; l: Expr; r: Expr; ty: Type; span: Span }
  | { k: 'assign'; op: AssignOp; l: Expr; r: Expr; ty: Type; span: Span }
  | { k: 'incdec'; op: '++' | '--'; prefix: boolean; e: Expr; ty: Type; span: Span }
  | { k: 'cond'; c: Expr; t: Expr; f: Expr; ty: Type; span: Span }
  | { k: 'call'; fn: Expr; args: Expr[]; fty: FuncType; ty: Type; span: Span }
  | { k: 'member'; e: Expr; m: Member; offset: number; ty: Type; span: Span }
  /** volatile: a cast to a pointer to volatile (`*(volatile __u32 *)p`): loads through it are volatile accesses, never removed, merged or moved. */
  | { k: 'cast'; e: Expr; ty: Type; implicit: boolean; span: Span; volatile?: boolean }
  | { k: 'comma'; l: Expr; r: Expr; ty: Type; span: Span }
  /** GNU ({ … }); `keepsStack`: a compound literal's (its object lives to the end of the enclosing block, not of this expression). */
  | { k: 'stmtexpr'; body: Stmt[]; ty: Type; span: Span; keepsStack?: boolean }
  /**
   * A builtin. Inline assembly is two of them: `__asm` (args: the input
   * operands, `asm` the template and constraints) emits the instructions and
   * leaves each output operand in a register, and `__asm_out` (`asmOut`: the
   * output's index) reads one of those registers back, as the right side of
   * an assignment to the output's lvalue.
   */
  | { k: 'builtin'; name: string; args: Expr[]; ty: Type; span: Span; asm?: AsmInfo; asmOut?: number }
  /** An inlined call (built by codegen's inliner, never by the parser). */
  | { k: 'inline'; fn: Sym; args: Expr[]; ty: Type; span: Span };

/** One operand of an inline asm statement: `[name] "constraint" (expr)`. */
export interface AsmOperand {
  name?: string;
  constraint: string;
  /** The implicit input of a "+r" output (tied to output `tied`; not numbered in the template). */
  implicit?: boolean;
}

/** The template, operands and clobbers of `asm volatile("…" : outputs : inputs : clobbers)`. */
export interface AsmInfo {
  template: string;
  outputs: AsmOperand[];
  inputs: AsmOperand[];
  clobbers: string[];
}

export type BinOp = '+' | '-' | '*' | '/' | '%' | '<<' | '>>' | '&' | '|' | '^' | '==' | '!=' | '<' | '>' | '<=' | '>=';
export type AssignOp = '=' | '+=' | '-=' | '*=' | '/=' | '%=' | '<<=' | '>>=' | '&=' | '|=' | '^=';

/** A flattened initializer: zero the object (when `zero`), then store each part. */
export interface Init {
  zero: boolean;
  parts: InitPart[];
  span: Span;
}
export interface InitPart {
  offset: number;
  type: Type;
  e: Expr;
  /** Bitfield member, when the part initialises one. */
  bit?: Member;
}

export type Stmt =
  | { k: 'expr'; e: Expr; span: Span }
  | { k: 'decl'; sym: Sym; init?: Init; span: Span }
  | { k: 'block'; body: Stmt[]; span: Span }
  | { k: 'if'; c: Expr; t: Stmt; f?: Stmt; span: Span }
  | { k: 'while'; c: Expr; body: Stmt; unroll?: number | 'full' | 'none'; span: Span }
  | { k: 'dowhile'; c: Expr; body: Stmt; unroll?: number | 'full' | 'none'; span: Span }
  | { k: 'for'; init?: Stmt; c?: Expr; step?: Expr; body: Stmt; unroll?: number | 'full' | 'none'; span: Span }
  | { k: 'break'; span: Span }
  | { k: 'continue'; span: Span }
  | { k: 'return'; e?: Expr; span: Span }
  | { k: 'switch'; e: Expr; body: Stmt; span: Span }
  | { k: 'case'; value: bigint; span: Span }
  | { k: 'default'; span: Span }
  | { k: 'label'; name: string; span: Span }
  | { k: 'goto'; name: string; span: Span }
  /** Inline assembly in a form that cannot be lowered (asm goto, an unparsable operand list): an error only where it is reached. */
  | { k: 'asm'; text: string; span: Span }
  | { k: 'empty'; span: Span };

export interface TranslationUnit {
  globals: Sym[];
  funcs: Sym[];
}
