/**
 * Child process for db-lock-race.test.ts: one racer for the DATA_DIR lock.
 * Commands on stdin, one per line; answers on stdout:
 *   try <dir> <epoch ms>  → at that instant, one acquireDataDirLock(dir):
 *                           `won`, `locked <pid>` or `error <message>`
 *   release               → releases what it holds: `released`
 * It says `ready` once the lock module is loaded, and exits when stdin ends.
 */
import { createInterface } from 'node:readline';
import { acquireDataDirLock, type DataDirLock } from '@/lib/server/db/data-dir-lock';

let held: DataDirLock | null = null;
const say = (line: string) => process.stdout.write(`${line}\n`);
say('ready');

for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, dir, at] = line.trim().split(' ');
  if (cmd === 'try') {
    // Busy-wait, not a timer: every racer leaves its mark at the same instant.
    while (Date.now() < Number(at)) {}
    try {
      held = acquireDataDirLock(dir);
      say('won');
    } catch (err) {
      const e = err as { code?: string; pid?: number; message?: string };
      say(e.code === 'data_dir_locked' ? `locked ${e.pid}` : `error ${e.message}`);
    }
  } else if (cmd === 'release') {
    held?.release();
    held = null;
    say('released');
  }
}
