#!/usr/bin/env node
// The published bin: plain ESM that registers tsx and runs the TypeScript CLI,
// so `agent-hooks` works straight after `npm ci`, with no build step. The
// project's tsconfig is named explicitly so its `@/` paths resolve from any
// working directory.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
const { main } = await import('./cli.ts');
process.exitCode = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
