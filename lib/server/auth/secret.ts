import 'server-only';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { config } from '@/lib/server/config';

let cached: string | undefined;

/**
 * The Auth.js signing secret: AUTH_SECRET when set, otherwise one generated
 * on first use and kept in `<dataDir>/auth-secret` (mode 0600) so that
 * sessions survive restarts.
 */
export function authSecret(): string {
  if (cached) return cached;
  const cfg = config();
  cached = cfg.AUTH_SECRET ?? readOrCreateSecret(path.join(cfg.dataDir, 'auth-secret'));
  return cached;
}

/** Reads the secret file, creating it if absent (first writer wins). */
export function readOrCreateSecret(file: string): string {
  if (!existsSync(file)) createSecretFile(file);
  // Tighten a file someone created by hand with looser permissions.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32) {
    throw new Error(
      `${file} holds a secret shorter than 32 characters; delete it or set AUTH_SECRET`,
    );
  }
  return secret;
}

function createSecretFile(file: string): void {
  // DATA_DIR is owner-only (db/data-dir-permissions.ts), also when only secrets live there.
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Write a temp file, then link it into place: a concurrent reader never
  // sees a half-written secret, and a second writer loses with EEXIST.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, `${randomBytes(48).toString('base64url')}\n`, { mode: 0o600 });
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(tmp);
  }
}
