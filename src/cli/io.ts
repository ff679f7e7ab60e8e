/**
 * What a CLI command may touch: its arguments, output streams and files.
 * Commands never throw for bad input: they print one line naming the
 * problem and return exit code 2 (see UsageError).
 */
import { readFileSync } from 'node:fs';

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

export const processIO: CliIO = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/** Bad input from the user: reported as one line, exit code 2. */
export class UsageError extends Error {}

export function readTextFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code ?? String(e)}`);
  }
}

export function readBinaryFile(file: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(file));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code ?? String(e)}`);
  }
}

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${what} is not valid JSON: ${(e as Error).message}`);
  }
}

/** Minimal flag parsing: --name value, --flag, and positionals. */
export function parseArgs(
  args: readonly string[],
  spec: { flags?: readonly string[]; options?: readonly string[] },
): { positional: string[]; flags: Set<string>; options: Map<string, string> } {
  const positional: string[] = [];
  const flags = new Set<string>();
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
      if (spec.flags?.includes(name) && eq < 0) flags.add(name);
      else if (spec.options?.includes(name)) {
        const v = eq >= 0 ? a.slice(eq + 1) : args[++i];
        if (v === undefined) throw new UsageError(`option --${name} needs a value`);
        options.set(name, v);
      } else throw new UsageError(`unknown option ${a}`);
    } else positional.push(a);
  }
  return { positional, flags, options };
}
