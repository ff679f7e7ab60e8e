/**
 * The XDP programs of the kernel's dynptr selftests (tools/testing/selftests/
 * bpf/progs/dynptr_fail.c, SEC("?xdp")), built by XDP Lab's compiler and
 * verified against the verdicts and messages their sources state (bpf_misc.h's
 * __failure / __msg, test_loader's reading: each message in the log, in
 * order). The oracle cannot load them (kfuncs need BTF), and the annotated
 * suite reads only verifier_*.c. dynptr_fail.c's other XDP programs clone the
 * dynptr (bpf_dynptr_clone), a kfunc XDP Lab does not provide: they are
 * listed, so a change there is seen. (skb_invalid_ctx, SEC("?xdp") over a
 * `void *ctx`, is not an XDP program to the compiler: it takes no
 * struct xdp_md *.)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileWorkspace } from '../../src/cc';
import { diskSystemHeaders } from '../../src/cli/system_headers';
import { parseSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';
import { ensureSelftests, SELFTESTS_DIR } from './verifier-selftests';

const SRC = path.join(SELFTESTS_DIR, 'src');
const FILE = 'tools/testing/selftests/bpf/progs/dynptr_fail.c';
const FLAGS = ['-Itools/testing/selftests/bpf', '-Itools/include/uapi', '-D__TARGET_ARCH_x86'];

/** The XDP programs and what their sources say. */
const XDP_CASES: { entry: string; msg: string }[] = [
  { entry: 'xdp_invalid_data_slice1', msg: "invalid mem access 'scalar'" },
  { entry: 'xdp_invalid_data_slice2', msg: "invalid mem access 'scalar'" },
];

/** Refused for a kfunc XDP Lab lacks, not for the reason their __msg names. */
const NOT_PROVIDED: Record<string, string> = {
  clone_invalid2: 'calling kernel function bpf_dynptr_clone is not allowed',
  clone_xdp_packet_data: 'calling kernel function bpf_dynptr_clone is not allowed',
};

function verifyEntry(entry: string): { accepted: boolean; error?: string; log: string } {
  const read = (rel: string): string | undefined => {
    try {
      return readFileSync(path.resolve(SRC, rel), 'utf8');
    } catch {
      return undefined;
    }
  };
  const r = compileWorkspace({ files: [{ path: FILE, text: read(FILE) ?? '' }], main: FILE, flags: FLAGS }, { readFile: read, systemHeaders: diskSystemHeaders, entry });
  if (!r.spec) throw new Error(`${entry}: ${r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message).join('; ')}`);
  const p = parseSpec(r.spec);
  if ('error' in p) throw new Error(p.error);
  const v = verify(p, { logLevel: 1, states: false });
  return { accepted: v.accepted, error: v.error, log: v.log };
}

describe("dynptr_fail.c's XDP programs, against the verdicts their sources state", () => {
  beforeAll(() => {
    const why = ensureSelftests();
    if (why) throw new Error(why);
  }, 20 * 60_000);

  for (const c of XDP_CASES) {
    it(`${c.entry}: refused, "${c.msg}" in the log`, () => {
      const v = verifyEntry(c.entry);
      expect(v.accepted).toBe(false);
      expect(v.log).toContain(c.msg);
    });
  }
  for (const [entry, error] of Object.entries(NOT_PROVIDED)) {
    it(`${entry}: refused for a kfunc XDP Lab does not provide`, () => {
      expect(verifyEntry(entry).error).toBe(error);
    });
  }
});
