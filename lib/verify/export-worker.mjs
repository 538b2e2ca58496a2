// Entry of an export-verification worker thread (export-file.ts): plain
// ESM that registers tsx, as bin/agent-hooks.mjs does, since a worker does
// not inherit the main thread's module hooks; then runs export-worker.ts.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../../tsconfig.json', import.meta.url)) });
await import('./export-worker.ts');
