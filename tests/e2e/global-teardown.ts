import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** Removes the run's temporary data directory (made in playwright.config.ts). */
export default function globalTeardown() {
  const dir = process.env.CHECKPOINT_E2E_DATA_DIR;
  if (dir?.startsWith(tmpdir())) rmSync(dir, { recursive: true, force: true });
}
