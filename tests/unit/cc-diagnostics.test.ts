/**
 * Diagnostics for bad programs, snapshot style: each case is a program and
 * the exact `line:col: severity: message` lines the compiler must print,
 * in order (clang's wording where clang has a message for it).
 */
import { describe, expect, it } from 'vitest';
import { compile, formatDiagnostic } from '../../src/cc';

const PRE = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n';
// Line numbers below count the two include lines.

const CASES: { name: string; src: string; want: string[] }[] = [
  {
    name: 'unknown header names the search path',
    src: '#include <linux/foo.h>\n',
    want: ["1:10: error: 'linux/foo.h' file not found (searched: the freestanding C headers, the system headers)"],
  },
  {
    name: 'missing semicolon after return',
    src: `${PRE}SEC("xdp") int p(struct xdp_md *ctx)\n{\n\treturn XDP_PASS\n}\n`,
    want: ["5:17: error: expected ';' after return statement"],
  },
  {
    name: 'undeclared identifier',
    src: `${PRE}SEC("xdp") int p(struct xdp_md *ctx)\n{\n\treturn XDP_PASS + nope;\n}\n`,
    want: ["5:20: error: use of undeclared identifier 'nope'"],
  },
  {
    name: 'no such member',
    src: `${PRE}SEC("xdp") int p(struct xdp_md *ctx)\n{\n\treturn ctx->len;\n}\n`,
    want: ["5:14: error: no member named 'len' in 'struct xdp_md'"],
  },
  {
    name: 'several errors in one run, then a warning',
    src: `${PRE}SEC("xdp") int p(struct xdp_md *ctx)\n{\n\tint a = b;\n\tunsigned char c = 300;\n\treturn a + c + d;\n}\n`,
    want: [
      "5:10: error: use of undeclared identifier 'b'",
      "6:20: warning: implicit conversion from 'int' to 'unsigned char' changes value from 300 to 44",
      "7:17: error: use of undeclared identifier 'd'",
    ],
  },
  {
    name: 'unreachable code',
    src: `${PRE}SEC("xdp") int p(struct xdp_md *ctx)\n{\n\treturn XDP_PASS;\n\tctx->data = 1;\n\treturn XDP_DROP;\n}\n`,
    want: ['6:2: warning: code will never be executed'],
  },
  {
    name: '#error',
    src: '#define X 1\n#if X > 0\n#error "X must be zero"\n#endif\n',
    want: ['3:1: error: "X must be zero"'],
  },
  {
    name: 'unterminated conditional',
    src: '#ifdef FOO\nint x;\n',
    want: ['1:1: error: unterminated conditional directive'],
  },
  {
    name: 'macro argument count',
    src: '#define F(a, b) a + b\nint x = F(1);\n',
    want: ["2:9: error: macro 'F' requires 2 arguments, but only 1 given"],
  },
  {
    name: 'no entry point',
    src: `${PRE}int helper(int x) { return x; }\n`,
    want: ['1:1: error: no XDP program found: put the entry function in an "xdp" section, e.g. SEC("xdp") int prog(struct xdp_md *ctx)'],
  },
  {
    name: 'unknown type name',
    src: `${PRE}SEC("xdp") int p(struct xdp_md *ctx)\n{\n\tfoo_t x = 0;\n\treturn x;\n}\n`,
    want: ["5:2: error: unknown type name 'foo_t'"],
  },
  {
    name: 'too many arguments to a helper',
    src: `${PRE}SEC("xdp") int p(struct xdp_md *ctx)\n{\n\treturn bpf_xdp_adjust_head(ctx, 1, 2);\n}\n`,
    want: ['5:9: error: too many arguments to function call, expected 2, have 3'],
  },
  {
    name: 'floating point',
    src: `${PRE}SEC("xdp") int p(struct xdp_md *ctx)\n{\n\treturn 1.5;\n}\n`,
    want: ['5:9: error: floating point is not supported by BPF'],
  },
  {
    name: 'recursion',
    src: `${PRE}static int f(int n) { return n ? f(n - 1) : 0; }\nSEC("xdp") int p(struct xdp_md *ctx)\n{\n\treturn f(3);\n}\n`,
    want: ["3:34: error: recursive call to 'f': BPF does not allow recursion"],
  },
  {
    name: 'stack limit',
    src: `${PRE}SEC("xdp") int p(struct xdp_md *ctx)\n{\n\tchar buf[600];\n\tbuf[0] = 1;\n\treturn buf[0];\n}\n`,
    want: ["3:16: error: Looks like the BPF stack limit is exceeded: 'p' needs 600 bytes, the limit is 512"],
  },
  {
    name: 'an extern variable has no storage',
    src: `${PRE}extern int counter;\nSEC("xdp") int p(struct xdp_md *ctx)\n{\n\treturn counter;\n}\n`,
    want: ["6:9: error: extern variable 'counter' has no definition here (libbpf resolves only __kconfig and __ksym externs, which are not supported)"],
  },
  {
    name: 'break outside a loop',
    src: `${PRE}SEC("xdp") int p(struct xdp_md *ctx)\n{\n\tbreak;\n\treturn 0;\n}\n`,
    want: ["5:2: error: 'break' statement not in loop or switch statement"],
  },
];

describe('compiler diagnostics', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const r = compile(c.src, { file: 't.c' });
      const got = r.diagnostics.filter((d) => d.severity !== 'note' && d.code !== 'sema-unused-variable').map((d) => `${d.span.line}:${d.span.col}: ${d.severity}: ${d.message}`);
      expect(got).toEqual(c.want);
      if (c.want.some((w) => w.includes(': error: '))) expect(r.spec).toBeUndefined();
    });
  }

  it('formats like clang: location, severity, source line and caret', () => {
    const src = `${PRE}SEC("xdp") int p(struct xdp_md *ctx)\n{\n\treturn nope;\n}\n`;
    const r = compile(src, { file: 'prog.c' });
    expect(formatDiagnostic(r.diagnostics[0]!, src)).toBe("prog.c:5:9: error: use of undeclared identifier 'nope'\n\treturn nope;\n\t       ^~~~\n");
  });

  it('attaches a note pointing at the previous definition', () => {
    const src = 'struct a { int x; };\nint f(void) { int v; int v; return 0; }\n';
    const r = compile(src, { file: 't.c' });
    const redef = r.diagnostics.find((d) => d.code === 'sema-redefinition')!;
    expect(redef.message).toBe("redefinition of 'v'");
    expect(redef.related?.[0]).toMatchObject({ severity: 'note', message: 'previous definition is here', span: { line: 2, col: 19 } });
  });
});
