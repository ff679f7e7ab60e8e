#!/usr/bin/env node
// The xdp-lab command line. Runs the TypeScript sources directly through
// tsx, so it works in a fresh clone right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
// `xdp-lab … | head` closes the pipe early: stop quietly, as Unix tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
