/**
 * The kernel as a test oracle: one long-lived batch process running
 * ../shared/oracle/bpf-oracle's own code (see oracle_batch.py), so that
 * thousands of programs can be checked against the real verifier and
 * BPF_PROG_TEST_RUN in one test run.
 *
 * Differential tests call `oracleAvailable()` first and skip — loudly —
 * only when `bpf-oracle --probe` fails (not root, no kernel support).
 * `new Oracle({ caps: 'cap_bpf' })` loads as XDP's least privilege
 * (CAP_BPF + CAP_NET_ADMIN, see OracleCaps).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { FibTable } from '../../src/vm';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ORACLE_PATH =
  process.env.BPF_ORACLE ?? path.resolve(here, '../../../shared/oracle/bpf-oracle');

export interface OracleMapSpec {
  type: string;
  key_size: number;
  value_size: number;
  max_entries: number;
  flags?: number;
  init?: { key: string; value: string }[];
}

export interface OracleSpec {
  prog_type?: 'xdp';
  insns: string;
  maps?: OracleMapSpec[];
  map_relocs?: { insn: number; map: number }[];
  log_level?: number;
  runs?: { data: string; repeat?: number }[];
  dump_maps?: boolean;
}

export interface OracleRun {
  retval: number;
  data_out: string;
  duration_ns: number;
  error?: string;
}

export interface OracleResult {
  available: boolean;
  accepted: boolean;
  errno: number;
  error: string;
  verifier_log: string;
  insns_processed: number | null;
  runs: OracleRun[];
  maps?: { type: string; entries: { key: string; value: string | string[] }[] }[];
}

/**
 * Who loads the program. 'root': every capability (the kernel's allow_ptr_leaks,
 * allow_uninit_stack and bypass_spec_v1/v4 are all on, via CAP_PERFMON).
 * 'cap_bpf': CAP_BPF + CAP_NET_ADMIN and nothing else, the least an XDP
 * program loads with (bpf_prog_load wants CAP_BPF for any type but socket
 * filters and cgroup skb, and CAP_NET_ADMIN for XDP): bpf_capable, so bounded
 * loops are allowed, but no CAP_PERFMON, so uninitialised stack reads and
 * pointer leaks are refused. Our verifier's `unprivileged` option models it.
 * The oracle runs under setpriv with only those two left in its bounding set
 * (root's capabilities on exec are cut to the bounding set).
 */
export type OracleCaps = 'root' | 'cap_bpf';

const CAP_BPF_PREFIX = ['setpriv', '--bounding-set', '-all,+bpf,+net_admin', '--inh-caps', '-all'];

function command(caps: OracleCaps, cmd: string, args: string[]): [string, string[]] {
  return caps === 'root' ? [cmd, args] : [CAP_BPF_PREFIX[0]!, [...CAP_BPF_PREFIX.slice(1), cmd, ...args]];
}

const probed = new Map<OracleCaps, { ok: boolean; why: string }>();

/** Whether the kernel oracle works here (loading with `caps`); the reason when it does not. */
export function oracleAvailable(caps: OracleCaps = 'root'): { ok: boolean; why: string } {
  const known = probed.get(caps);
  if (known) return known;
  const [cmd, args] = command(caps, ORACLE_PATH, ['--probe']);
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  const p =
    r.status === 0
      ? { ok: true, why: '' }
      : { ok: false, why: `${caps === 'root' ? '' : `${CAP_BPF_PREFIX.join(' ')} `}bpf-oracle --probe failed (exit ${r.status}): ${(r.stdout || r.stderr || String(r.error)).trim()}` };
  probed.set(caps, p);
  if (!p.ok) {
    // Loud on purpose: a skipped differential test must never look like a pass.
    console.warn(`\n*** KERNEL ORACLE UNAVAILABLE${caps === 'root' ? '' : ' WITH CAP_BPF + CAP_NET_ADMIN ONLY'} — differential tests SKIPPED: ${p.why} ***\n`);
  }
  return p;
}

/**
 * The helper a refusal names when this machine's kernel build does not offer
 * it to the program type ("program of this type cannot use helper
 * bpf_xdp_adjust_meta#54": this sandbox's kernel leaves bpf_xdp_adjust_meta
 * out of XDP, which upstream offers). The kernel cannot be the reference for
 * such a program here: the caller says so loudly and judges it otherwise, or
 * skips that case by name; undefined for any other refusal.
 */
export function helperNotOffered(log: string | undefined): string | undefined {
  return /program of this type cannot use helper (\w+#\d+)/.exec(log ?? '')?.[1];
}

/** The loud line for a case the kernel here cannot judge (helperNotOffered). */
export function warnHelperNotOffered(what: string, helper: string, instead: string): void {
  console.warn(`\n*** ${what}: THIS MACHINE'S KERNEL DOES NOT OFFER ${helper} TO XDP PROGRAMS (upstream does): ${instead} ***\n`);
}

/**
 * The routing side of the machine the oracle's BPF_PROG_TEST_RUN runs on, for
 * bpf_fib_lookup in a VM that is compared with it: the packet comes in on lo
 * (ifindex 1), where forwarding is off, so a lookup without
 * BPF_FIB_LOOKUP_OUTPUT gives BPF_FIB_LKUP_RET_FWD_DISABLED before any route
 * is looked at (net/core/filter.c checks the ingress device first). The VM's
 * own default is the lab's two-port router, which forwards.
 */
export function oracleFib(): FibTable {
  return new FibTable({ interfaces: [{ ifindex: 1, name: 'lo', mac: '00:00:00:00:00:00', mtu: 65536, forwarding: false }], routes: [], neighbours: [] });
}

/** A persistent batch connection to the kernel oracle. */
export class Oracle {
  private proc: ChildProcessWithoutNullStreams;
  private waiting: ((line: string) => void)[] = [];

  constructor(opts: { caps?: OracleCaps } = {}) {
    const [cmd, args] = command(opts.caps ?? 'root', 'python3', [path.join(here, 'oracle_batch.py')]);
    this.proc = spawn(cmd, args, {
      env: { ...process.env, BPF_ORACLE: ORACLE_PATH },
    });
    const rl = createInterface({ input: this.proc.stdout });
    rl.on('line', (line) => this.waiting.shift()?.(line));
    this.proc.stderr.on('data', (d: Buffer) => process.stderr.write(`[oracle] ${d}`));
  }

  /** Load (and run, when spec.runs is given) one program in the kernel. */
  ask(spec: OracleSpec): Promise<OracleResult> {
    return new Promise((resolve, reject) => {
      this.waiting.push((line) => {
        try {
          resolve(JSON.parse(line) as OracleResult);
        } catch {
          reject(new Error(`oracle answered non-JSON: ${line.slice(0, 200)}`));
        }
      });
      this.proc.stdin.write(JSON.stringify({ prog_type: 'xdp', ...spec }) + '\n');
    });
  }

  close(): void {
    this.proc.stdin.end();
  }
}
