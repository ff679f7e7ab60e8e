/**
 * The verifier cases' offline snapshot: what the kernel said about each case
 * in tests/cases/verifier/*.cases (verdict, first error line, processed
 * instruction count), recorded once through bpf-oracle so the comparison
 * runs without the kernel. Each recording carries a digest of the case's
 * program, so an edited case whose recording is stale is reported, not
 * compared against an answer about a different program.
 *
 * Record again: `XDP_LAB_UPDATE_SNAPSHOT=1 npx vitest run tests/differential/verifier-cases.test.ts`
 * (needs the oracle).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { VerifierCase } from './load';

export interface KernelRecording {
  /** sha256 (first 16 hex digits) of the spec the kernel loaded. */
  digest: string;
  accepted: boolean;
  /** The kernel's first error line, normalised (normalizeErrorLine); '' when accepted. */
  error: string;
  insnsProcessed: number | null;
}

export interface Snapshot {
  /** `uname -r` of the kernel that made the recordings. */
  kernel: string;
  cases: Record<string, KernelRecording>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
export const SNAPSHOT_PATH = path.join(here, 'kernel-snapshot.json');

export const caseKey = (c: VerifierCase): string => `${c.file}/${c.name}`;

export function caseDigest(c: VerifierCase): string {
  const h = createHash('sha256');
  h.update(JSON.stringify({ insns: c.spec.insns, maps: c.spec.maps ?? [], relocs: c.spec.map_relocs ?? [] }));
  return h.digest('hex').slice(0, 16);
}

export function readSnapshot(): Snapshot {
  if (!existsSync(SNAPSHOT_PATH)) return { kernel: '', cases: {} };
  return JSON.parse(readFileSync(SNAPSHOT_PATH, 'utf8')) as Snapshot;
}

export function writeSnapshot(s: Snapshot): void {
  const sorted: Record<string, KernelRecording> = {};
  for (const k of Object.keys(s.cases).sort()) sorted[k] = s.cases[k]!;
  writeFileSync(SNAPSHOT_PATH, JSON.stringify({ kernel: s.kernel, cases: sorted }, null, 1) + '\n');
}
