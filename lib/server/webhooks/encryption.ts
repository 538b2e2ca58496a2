import 'server-only';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import path from 'node:path';
import { readOrCreateSecret } from '../auth/secret';
import { config } from '../config';

/**
 * Webhook signing secrets are stored encrypted (AES-256-GCM) with a key
 * derived from APP_ENCRYPTION_KEY, or from one generated into DATA_DIR the
 * way the auth secret is: a database dump alone does not reveal them.
 */

const PREFIX = 'enc1';
let cachedKey: Buffer | undefined;

function key(): Buffer {
  if (cachedKey) return cachedKey;
  const cfg = config();
  const material =
    cfg.APP_ENCRYPTION_KEY ?? readOrCreateSecret(path.join(cfg.dataDir, 'encryption-key'));
  // HKDF with a purpose label: the same material could later key other things.
  cachedKey = Buffer.from(hkdfSync('sha256', material, '', 'checkpoint webhook secrets v1', 32));
  return cachedKey;
}

export function encryptSecret(plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key(), iv);
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [PREFIX, iv, tag, ct]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join(':');
}

/** Throws when the value was not produced with this key (tampered, or the key changed). */
export function decryptSecret(stored: string): string {
  const [prefix, iv, tag, ct] = stored.split(':');
  if (prefix !== PREFIX || !iv || !tag || ct === undefined) {
    throw new Error('webhook secret is not in the encrypted format');
  }
  const decipher = createDecipheriv('aes-256-gcm', key(), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
}
