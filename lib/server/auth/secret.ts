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

/** The keys every process on one database must share (db/key-fingerprints.ts checks them). */
export type SharedKeyName = 'AUTH_SECRET' | 'APP_ENCRYPTION_KEY';

/** Where the embedded start keeps a generated key, in DATA_DIR. */
const KEY_FILES: Record<SharedKeyName, string> = {
  AUTH_SECRET: 'auth-secret',
  APP_ENCRYPTION_KEY: 'encryption-key',
};

export class SharedKeyError extends Error {
  constructor(
    readonly code: 'key_required' | 'key_mismatch',
    message: string,
  ) {
    super(message);
  }
}

/**
 * A key every process must agree on. Set, it is used as given. Unset, the
 * embedded database (one process per DATA_DIR) generates one into DATA_DIR;
 * with DATABASE_URL there may be several processes (the app, `npm run
 * worker`, replicas), each with its own DATA_DIR, and a generated key would
 * differ between them (a worker could not decrypt what the app encrypted),
 * so the key is required.
 */
export function sharedSecret(name: SharedKeyName): string {
  const cfg = config();
  const set = cfg[name];
  if (set) return set;
  const file = path.join(cfg.dataDir, KEY_FILES[name]);
  if (cfg.embedded) return readOrCreateSecret(file, name);
  const earlier = existsSync(file)
    ? ` This DATA_DIR holds one an earlier start generated (${file}): set ${name} to its content to keep what was made with it.`
    : '';
  throw new SharedKeyError(
    'key_required',
    `${name} is required when DATABASE_URL is set: the app and every worker on one database must share it. ` +
      `Generate one with \`openssl rand -base64 48\` and give the same value to every process.${earlier}`,
  );
}

/**
 * The Auth.js signing secret: AUTH_SECRET when set, otherwise (embedded
 * database only) one generated on first use and kept in
 * `<dataDir>/auth-secret` (mode 0600) so that sessions survive restarts.
 */
export function authSecret(): string {
  cached ??= sharedSecret('AUTH_SECRET');
  return cached;
}

/** Reads the secret file, creating it if absent (first writer wins). */
export function readOrCreateSecret(file: string, name = 'the variable'): string {
  if (!existsSync(file)) createSecretFile(file);
  // Tighten a file someone created by hand with looser permissions.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32) {
    throw new Error(`${file} holds a secret shorter than 32 characters; delete it or set ${name}`);
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
