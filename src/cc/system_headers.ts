/**
 * The system headers the compiler reads when a caller does not pass its own
 * (compile(source) in tests, lessons and the engine): a reader installed once
 * per process by whoever can read them — the CLI and the test setup install
 * the /usr/include reader (src/cli/system_headers.ts), the app's worker the
 * bundle built from libbpf-dev and linux-libc-dev. The compiler itself never
 * touches a disk; with nothing installed, a system #include fails with a
 * message naming the packages.
 */
import type { HeaderReader } from './includes';

let installed: HeaderReader | undefined;

export function installSystemHeaders(reader: HeaderReader | undefined): void {
  installed = reader;
}

export function installedSystemHeaders(): HeaderReader | undefined {
  return installed;
}
