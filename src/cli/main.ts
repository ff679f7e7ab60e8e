/**
 * xdp-lab: the command line over the same pure core the app runs.
 * Each subcommand lives in commands/<name>.ts and exports
 * `run(args, io): Promise<number>` (the exit code).
 */
import { installSystemHeaders } from '../cc/system_headers';
import { processIO, UsageError, type CliIO } from './io';
import { diskSystemHeaders } from './system_headers';

// The compiler reads the system headers through this reader (/usr/include), as clang does.
installSystemHeaders(diskSystemHeaders);

type Command = { summary: string; load: () => Promise<{ run(args: string[], io: CliIO): Promise<number> }> };

const COMMANDS: Record<string, Command> = {
  asm: { summary: 'assemble eBPF text to hex (kernel or uBPF syntax)', load: () => import('./commands/asm') },
  disasm: { summary: 'disassemble hex or a spec to kernel syntax', load: () => import('./commands/disasm') },
  run: { summary: 'run a program on packets (BPF_PROG_TEST_RUN semantics)', load: () => import('./commands/run') },
  conformance: { summary: 'run a folder of bpf_conformance .data files', load: () => import('./commands/conformance') },
  compile: { summary: 'compile restricted C to a program spec (--asm: disassembly)', load: () => import('./commands/compile') },
  verify: { summary: 'verify a program like the kernel verifier', load: () => import('./commands/verify') },
  sim: { summary: 'run the driver simulation headless (--list, --scenario NAME)', load: () => import('./commands/sim') },
  bench: { summary: 'print the performance figures', load: () => import('./commands/bench') },
  exercises: { summary: 'list the graded course (--json)', load: () => import('./commands/exercises') },
  grade: { summary: 'grade a solution: grade ID FILE.c [--json]', load: () => import('./commands/grade') },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(12)} ${c.summary}`);
  return `usage: xdp-lab <command> [args]\n\ncommands:\n${lines.join('\n')}\n`;
}

export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '-h' || name === '--help' || name === 'help') {
    io.out(usage());
    return name ? 0 : 2;
  }
  const cmd = COMMANDS[name];
  if (!cmd) {
    io.err(`xdp-lab: unknown command '${name}'\n${usage()}`);
    return 2;
  }
  try {
    const mod = await cmd.load();
    return await mod.run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`xdp-lab ${name}: ${e.message}\n`);
      return 2;
    }
    // An internal error is our bug; still one line, never a stack trace by default.
    io.err(`xdp-lab ${name}: internal error: ${(e as Error)?.message ?? String(e)}\n`);
    if (process.env.XDP_LAB_DEBUG) io.err(`${(e as Error)?.stack}\n`);
    return 70;
  }
}
