/**
 * Child process for start-postgres.test.ts: starts the server's back end the
 * way `next start` does, through instrumentation.ts's register() (which runs
 * lib/server/boot.ts, and on failure logs the reason and exits 1), without
 * the HTTP layer, which needs a build. Says `CHILD_UP` once started; SIGTERM
 * stops it through the app's own shutdown handler.
 */
import { register } from '../../instrumentation';

await register();
// Stands in for Next's HTTP server, which keeps the real process up.
setInterval(() => {}, 60_000);
process.stdout.write('CHILD_UP\n');
