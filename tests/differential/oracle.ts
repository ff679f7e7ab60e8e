/**
 * The kernel as a test oracle: one long-lived batch process running
 * ../shared/oracle/bpf-oracle's own code (see oracle_batch.py), so that
 * thousands of programs can be checked against the real verifier and
 * BPF_PROG_TEST_RUN in one test run.
 *
 * Differential tests call `oracleAvailable()` first and skip — loudly —
 * only when `bpf-oracle --probe` fails (not root, no kernel support).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

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

let probed: { ok: boolean; why: string } | undefined;

/** Whether the kernel oracle works here; the reason when it does not. */
export function oracleAvailable(): { ok: boolean; why: string } {
  if (probed) return probed;
  const r = spawnSync(ORACLE_PATH, ['--probe'], { encoding: 'utf8' });
  probed =
    r.status === 0
      ? { ok: true, why: '' }
      : { ok: false, why: `bpf-oracle --probe failed (exit ${r.status}): ${(r.stdout || r.stderr || String(r.error)).trim()}` };
  if (!probed.ok) {
    // Loud on purpose: a skipped differential test must never look like a pass.
    console.warn(`\n*** KERNEL ORACLE UNAVAILABLE — differential tests SKIPPED: ${probed.why} ***\n`);
  }
  return probed;
}

/** A persistent batch connection to the kernel oracle. */
export class Oracle {
  private proc: ChildProcessWithoutNullStreams;
  private waiting: ((line: string) => void)[] = [];

  constructor() {
    this.proc = spawn('python3', [path.join(here, 'oracle_batch.py')], {
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
