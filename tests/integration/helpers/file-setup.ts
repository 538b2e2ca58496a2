import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

/**
 * Runs before every integration test file (vitest `setupFiles`). Files share
 * the run's database but each one's tree heads are its own: TRUNCATE starts
 * a new log, and a tree-head file still holding another file's heads would
 * contradict it (the verifier and the audit pages compare the two). So each
 * file gets its own tree-head file in the run's directory (global-setup.ts);
 * a file that sets TREE_HEAD_FILE itself (vi.hoisted) overrides this.
 */
const runDir = process.env.TEST_RUN_DIR;
if (!runDir)
  throw new Error('TEST_RUN_DIR is unset: tests/integration/global-setup.ts did not run');
process.env.TREE_HEAD_FILE = join(runDir, `tree-heads-${randomUUID()}.jsonl`);
