#!/usr/bin/env node
// The xdp-lab command line. Runs the TypeScript sources directly through
// tsx, so it works in a fresh clone right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
