/**
 * The preprocessor and include search against what clang-19 -target bpf does:
 * GNU and C2x variadic macros, pasting and stringizing corner cases, _Pragma,
 * __has_include(_next), #include_next, include guards and #pragma once,
 * cycles, the search order of "x.h" / <x.h> with -I / -iquote / -idirafter,
 * the flags, and clang's predefined macros. Expected outputs were checked
 * against `clang-19 -target bpf -E` by hand.
 */
import { describe, expect, it } from 'vitest';
import { compileWorkspace, preprocessWorkspace, type Workspace } from '../../src/cc';
import { parseCcFlags, shellSplit } from '../../src/cc/flags';
import { runOnce } from './cc-helpers';

function pp(files: Record<string, string>, flags: string[] = [], main = Object.keys(files)[0]!, systemHeaders?: (p: string) => string | undefined) {
  const ws: Workspace = { files: Object.entries(files).map(([path, text]) => ({ path, text })), main, flags };
  const r = preprocessWorkspace(ws, systemHeaders ? { systemHeaders } : {});
  let s = '';
  for (const t of r.tokens) {
    if (t.kind === 'eof') continue;
    s += (s && (t.space || t.bol) ? ' ' : '') + (t.kind === 'pragma' ? `#pragma(${t.text}${t.value !== undefined ? ' ' + t.value : ''})` : t.text);
  }
  return { text: s, errors: r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), diags: r.diagnostics };
}
const one = (src: string, flags: string[] = []) => pp({ 'p.c': src }, flags);

describe('macros', () => {
  it('expands GNU named variadic macros and elides the comma before an empty ## args', () => {
    const r = one('#define P(fmt, args...) f(fmt, ##args)\n#define Q(args...) g(args)\nP(1) P(1, 2, 3) Q() Q(a, b)');
    expect(r.errors).toEqual([]);
    expect(r.text).toBe('f(1) f(1, 2, 3) g() g(a, b)');
  });

  it('handles __VA_ARGS__ with GNU comma elision and __VA_OPT__', () => {
    const r = one('#define E(f, ...) e(f, ## __VA_ARGS__)\n#define O(f, ...) o(f __VA_OPT__(,) __VA_ARGS__)\nE(1) E(1,2) O(1) O(1,2)');
    expect(r.text).toBe('e(1) e(1,2) o(1) o(1 , 2)');
  });

  it('pastes with placemarkers: an empty argument on either side of ## leaves the other', () => {
    const r = one('#define C(a, b) a ## b\n#define C3(a, b, c) a ## b ## c\nC(x, ) C(, y) C(, ) C(x, y) C3(a, , c) C(1, 2)');
    expect(r.errors).toEqual([]);
    expect(r.text).toBe('x y xy ac 12');
  });

  it('stringizes with spaces collapsed and quotes and backslashes escaped', () => {
    const r = one('#define S(x) #x\n#define XS(x) S(x)\n#define V 42\nS(  a   +  b ) S("q\\n" \'c\') S(V) XS(V) S()');
    expect(r.text).toBe('"a + b" "\\"q\\\\n\\" \'c\'" "V" "42" ""');
  });

  it('stops at self reference (hide sets) and rescans the result', () => {
    const r = one('#define foo foo + 1\n#define f(x) x g\n#define g f\n#define h(x) f(x)\nfoo h(2)(3)');
    expect(r.text).toBe('foo + 1 2 f(3)');
  });

  it('counts __COUNTER__ and gives __LINE__ the invocation line', () => {
    const r = one('#define L __LINE__\n__COUNTER__ __COUNTER__\nL\n__LINE__');
    expect(r.text).toBe('0 1 3 4');
  });

  it('runs _Pragma as a #pragma: unroll reaches the parser, the rest is ignored', () => {
    const r = one('#define UNROLL _Pragma("unroll")\n#define IGN _Pragma("GCC diagnostic ignored \\"-Wfoo\\"")\nUNROLL for IGN ;');
    expect(r.errors).toEqual([]);
    expect(r.text).toBe('#pragma(unroll) for ;');
  });

  it('defines function-like macros from -D and applies -U in order', () => {
    const r = one('A B F(3) C', ['-DA', '-DB=2', '-DF(x)=((x)+1)', '-DC=1', '-UC']);
    expect(r.text).toBe('1 2 ((3)+1) C');
  });
});

describe('#if', () => {
  it('evaluates defined, also when a macro expands to it, and unsigned arithmetic', () => {
    const r = one([
      '#define D defined(X)',
      '#define X',
      '#if D && defined X && !defined(Y)\nyes1\n#endif',
      '#if -1 > 0u\nyes2\n#endif',
      '#if (-1 >> 63) == -1 && 0xffffffffffffffff == -1\nyes3\n#endif',
      '#if UNDEFINED_NAME == 0 && (2 || 1/0)\nyes4\n#endif',
      "#if 'A' == 65\nyes5\n#elifdef X\nno\n#endif",
      '#if 0\n#error don\'t\n#else\nyes6\n#endif',
    ].join('\n'));
    expect(r.errors).toEqual([]);
    expect(r.text).toBe('yes1 yes2 yes3 yes4 yes5 yes6');
  });

  it('answers __has_include, __has_builtin, __has_attribute, and defined() of them', () => {
    const r = pp({
      'p.c': [
        '#if defined(__has_include) && __has_include("inc/a.h") && __has_include(<stdint.h>) && !__has_include(<nope.h>)\nA\n#endif',
        '#if __has_builtin(__builtin_memcpy) && !__has_builtin(__builtin_nope) && __has_attribute(always_inline) && __has_attribute(__packed__)\nB\n#endif',
      ].join('\n'),
      'inc/a.h': '',
    });
    expect(r.errors).toEqual([]);
    expect(r.text).toBe('A B');
  });

  it('predefines what clang -target bpf -O2 predefines', () => {
    const r = one('__BPF__ __bpf__ __clang__ __clang_major__ __BPF_CPU_VERSION__ __OPTIMIZE__ __SIZEOF_INT128__ __x86_64__ __linux__ __LP64__ __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__');
    expect(r.text).toBe('1 1 1 19 1 1 16 __x86_64__ __linux__ 1 1234 == 1234');
    expect(one('__OPTIMIZE__ __NO_INLINE__ __STDC_VERSION__ __BPF_CPU_VERSION__', ['-O0', '-std=gnu11', '-mcpu=v3']).text).toBe('__OPTIMIZE__ 1 201112L 3');
  });

  it('reports an apostrophe only where the token is used, not in #error text or skipped groups', () => {
    expect(one("#if 0\nit's\n#endif\nok").errors).toEqual([]);
    expect(one("x = 'a;").errors).toEqual(["missing terminating ' character"]);
  });
});

describe('includes', () => {
  it('resolves "x.h" beside the including file first, then -I, in order', () => {
    const files = {
      'packet01/prog.c': '#include "../common/parsing.h"\n#include "local.h"\n#include <shared.h>',
      'packet01/local.h': 'local_packet01',
      'common/parsing.h': '#include "helper.h"\nparsing',
      'common/helper.h': 'helper_in_common',
      'inc1/shared.h': 'shared_inc1',
      'inc2/shared.h': 'shared_inc2',
      'inc1/local.h': 'local_inc1',
    };
    const r = pp(files, ['-Iinc1', '-I', 'inc2'], 'packet01/prog.c');
    expect(r.errors).toEqual([]);
    expect(r.text).toBe('helper_in_common parsing local_packet01 shared_inc1');
  });

  it('searches -iquote only for "x.h", -idirafter after the system headers, and continues with #include_next', () => {
    const files = {
      'p.c': '#include "q.h"\n#include <stdint.h>\n#include <late.h>\n#include <wrap.h>',
      'quote/q.h': 'from_quote',
      'quote/late.h': 'never',
      'after/late.h': 'from_after',
      'first/wrap.h': 'wrap_first #include_next <wrap.h>',
      'second/wrap.h': 'wrap_second',
    };
    // #include_next must be at the start of a line.
    files['first/wrap.h'] = 'wrap_first\n#include_next <wrap.h>';
    const r = pp(files, ['-iquote', 'quote', '-idirafter', 'after', '-Ifirst', '-Isecond']);
    expect(r.errors).toEqual([]);
    expect(r.text).toMatch(/^from_quote typedef .* from_after wrap_first wrap_second$/);
  });

  it('reads a guarded header or a #pragma once header once', () => {
    const r = pp({
      'p.c': '#include "g.h"\n#include "g.h"\n#include "o.h"\n#include "o.h"\nG_H',
      'g.h': '// comment\n#ifndef G_H\n#define G_H 7\nguarded\n#endif\n',
      'o.h': '#pragma once\nonce',
    });
    expect(r.text).toBe('guarded once 7');
  });

  it('stops an include cycle with an error naming the chain', () => {
    const r = pp({ 'p.c': '#include "a.h"', 'a.h': '#include "b.h"', 'b.h': '#include "a.h"' });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/#include nested too deeply \(limit 200; an include cycle\? … .*a\.h → b\.h/);
  });

  it('names the search path, and the package, when a header is missing', () => {
    const r = pp({ 'src/p.c': '#include "x.h"\n#include <bpf/bpf_helpers.h>' }, ['-Iinc'], 'src/p.c', (p) => (p === 'linux/types.h' ? '' : undefined));
    expect(r.errors).toEqual([
      "'x.h' file not found (searched: src/ (the including file's folder), -I inc, the freestanding C headers, the system headers)",
      "'bpf/bpf_helpers.h' file not found (searched: -I inc, the freestanding C headers, the system headers); libbpf-dev is not installed (apt-get install libbpf-dev)",
    ]);
    const none = pp({ 'p.c': '#include <linux/bpf.h>' }, [], 'p.c', () => undefined);
    expect(none.errors[0]).toContain('linux-libc-dev is not installed');
    // The C library's headers are glibc's (libc6-dev), never stand-ins: without them the message names the package.
    const libc = pp({ 'p.c': '#include <string.h>\n#include <netinet/in.h>\n#include <stddef.h>' }, [], 'p.c', () => undefined);
    expect(libc.errors).toHaveLength(2);
    for (const e of libc.errors) expect(e).toContain('libc6-dev is not installed (apt-get install libc6-dev)');
  });

  it('reads -include files first, and -imacros files for their macros only', () => {
    const r = pp({ 'p.c': 'main M', 'pre.h': 'pre', 'mac.h': '#define M macro\nnot_output' }, ['-include', 'pre.h', '-imacros', 'mac.h']);
    expect(r.text).toBe('pre main macro');
  });

  it("includes glibc's headers unchanged (libc6-dev), as clang -target bpf reads them", () => {
    // Each alone, then the network ones together (their guards and shared bits/ headers), in the style of older XDP samples.
    const headers = ['sys/socket.h', 'sys/types.h', 'netinet/in.h', 'netinet/ip.h', 'netinet/ip6.h', 'netinet/udp.h', 'netinet/tcp.h', 'netinet/ip_icmp.h',
      'netinet/icmp6.h', 'netinet/if_ether.h', 'net/ethernet.h', 'net/if.h', 'arpa/inet.h', 'string.h', 'errno.h', 'endian.h', 'stdlib.h', 'stdio.h', 'time.h', 'inttypes.h'];
    const prog = (includes: string[], body: string) => '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n' + includes.map((h) => `#include <${h}>\n`).join('')
      + `SEC("xdp") int p(struct xdp_md *ctx) { ${body} }\n`;
    const build = (src: string) => compileWorkspace({ files: [{ path: 'p.c', text: src }], main: 'p.c', flags: ['-O2', '-g', '-target', 'bpf', '-I/usr/include/x86_64-linux-gnu', '-Wall'] });
    for (const h of headers) {
      const r = build(prog([h], 'return XDP_PASS;'));
      expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), h).toEqual([]);
      expect(r.spec, h).toBeDefined();
    }
    // htons is glibc's macro over __bswap_16 at -O2 (__OPTIMIZE__), struct iphdr and sockaddr_in its own; they compute here.
    const r = build(prog(['net/ethernet.h', 'netinet/ip.h', 'arpa/inet.h', 'sys/socket.h', 'string.h'],
      'struct sockaddr_in sa; memset(&sa, 0, sizeof(sa)); sa.sin_family = AF_INET; sa.sin_port = htons(ETHERTYPE_IP); '
      + 'return sizeof(struct iphdr) == 20 && sizeof(struct ether_header) == 14 && sa.sin_port == 8 && IPPROTO_UDP == 17 && SOL_SOCKET == 1 ? XDP_PASS : XDP_DROP;'));
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.spec).toBeDefined();
    expect(runOnce(r.spec!)).toBe(2);
  });

  it('hosted, as clang is: stdint.h and limits.h bring the C library\'s own first (glibc\'s __uint64_t, PATH_MAX)', () => {
    // clang-19 -O2 -target bpf folds this to r0 = 4: glibc's __WORDSIZE is 32 off x86_64, so its uint_fast16_t is 4 bytes there.
    const src = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n#include <limits.h>\n#include <stdint.h>\n'
      + 'SEC("xdp") int p(struct xdp_md *ctx) { __uint64_t a = UINT64_MAX; uint_fast16_t f = 1; return (PATH_MAX == 4096) + (INT_MAX == 2147483647) + (a == ULONG_MAX) + (sizeof(f) == 8) + (LLONG_MIN < 0); }\n';
    const r = compileWorkspace({ files: [{ path: 'p.c', text: src }], main: 'p.c', flags: ['-O2', '-target', 'bpf', '-I/usr/include/x86_64-linux-gnu'] });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(runOnce(r.spec!)).toBe(4);
    // Without system headers the freestanding definitions stand alone.
    const alone = pp({ 'p.c': '#include <stdint.h>\n#include <limits.h>\nuint64_t x = UINT64_MAX; int y = INT_MAX;' }, [], 'p.c', () => undefined);
    expect(alone.errors).toEqual([]);
    expect(alone.text).toContain('typedef unsigned long uint64_t');
  });

  it("reads prefixed character constants (L'\\0', u'x', U'x', u8'x') as their code, in #if too (glibc's bits/wchar.h)", () => {
    const r = one("#if L'\\0' - 1 > 0\nunsigned_wchar\n#else\nsigned_wchar\n#endif\n#if L'A' + u'B' + U'C' + u8'D' == 65 + 66 + 67 + 68\nsum_ok\n#endif");
    expect(r.errors).toEqual([]);
    expect(r.text).toBe('signed_wchar sum_ok');
  });

  it('includes the real system headers unchanged (linux-libc-dev, libbpf-dev)', () => {
    const src = '#include <linux/bpf.h>\n#include <linux/if_ether.h>\n#include <linux/ip.h>\n#include <linux/icmp.h>\n#include <linux/pkt_cls.h>\n#include <bpf/bpf_helpers.h>\n#include <bpf/bpf_endian.h>\n#include <bpf/bpf_core_read.h>\n'
      + 'SEC("xdp") int p(struct xdp_md *ctx) { return bpf_ntohs(ETH_P_IP) == 8 ? XDP_PASS : XDP_DROP; }\n';
    const r = compileWorkspace({ files: [{ path: 'p.c', text: src }], main: 'p.c', flags: ['-O2', '-g', '-target', 'bpf', '-I/usr/include/x86_64-linux-gnu', '-Wall'] });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.spec).toBeDefined();
  });
});

describe('flags', () => {
  it('splits pasted Makefile variables like a shell and rejects unknown arguments', () => {
    expect(shellSplit(`-I dir -D'A=1 2' "-Ib c"`)).toEqual(['-I', 'dir', '-DA=1 2', '-Ib c']);
    const f = parseCcFlags(['-idirafter xdp-tools/headers', '-D__TARGET_ARCH_x86', '-g', '-O2', '--target=bpf', '-Wno-unused', '-c', '-o', 'x.o', '-mcpu=v3', '-std=gnu11']);
    expect(f.errors).toEqual([]);
    expect(f.after).toEqual(['xdp-tools/headers']);
    expect(f.macros).toEqual([{ define: '__TARGET_ARCH_x86', value: '1' }]);
    expect(f.cpuVersion).toBe(3);
    expect(parseCcFlags(['-frobnicate-not', '--bogus', '-I']).errors).toEqual(["unknown argument: '--bogus'", "argument to '-I' is missing (expected 1 value)"]);
  });
});
