/**
 * The real XDP programs the differential tests run (realworld.test.ts in
 * the kernel, vm-jit-realworld.test.ts JIT against interpreter): each
 * folder with the manifest that lists its programs (paths relative to the
 * folder). The kernel selftests' sources come from scripts/fetch-selftests.sh;
 * `realworldSuites` fetches them first when they are missing.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REALWORLD_DIR, REALWORLD_EXTRA_DIR } from '../../src/cli/realworld';
import { ensureSelftests, SELFTESTS_DIR } from './verifier-selftests';

export interface RealworldSuite {
  label: string;
  dir: string;
  /** The manifest, when it is not dir/manifest.json. */
  manifest?: string;
}

/** tests/realworld-selftests/manifest.json: which of the selftests' XDP programs are in, and why the others are not. */
const SELFTESTS_MANIFEST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../realworld-selftests/manifest.json');

/** The three suites, and why the selftests' sources could not be fetched (undefined when they are there, or when `fetch` is false). */
export function realworldSuites(fetch = true): { suites: RealworldSuite[]; fetchFailed: string | undefined } {
  return {
    fetchFailed: fetch ? ensureSelftests() : undefined,
    suites: [
      { label: '../shared/realworld-dev', dir: REALWORLD_DIR },
      { label: 'tests/realworld-extra', dir: REALWORLD_EXTRA_DIR },
      { label: 'the kernel selftests\' XDP programs', dir: path.join(SELFTESTS_DIR, 'src'), manifest: SELFTESTS_MANIFEST },
    ],
  };
}
