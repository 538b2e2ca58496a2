import 'server-only';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { sharedSecret } from '../auth/secret';

/**
 * Webhook signing secrets are stored encrypted (AES-256-GCM) with a key
 * derived from APP_ENCRYPTION_KEY (required with DATABASE_URL, generated into
 * DATA_DIR for the embedded database; auth/secret.ts : sharedSecret): a
 * database dump alone does not reveal them.
 */

const PREFIX = 'enc1';
let cachedKey: Buffer | undefined;

function key(): Buffer {
  if (cachedKey) return cachedKey;
  // HKDF with a purpose label: the same material could later key other things.
  cachedKey = Buffer.from(
    hkdfSync('sha256', sharedSecret('APP_ENCRYPTION_KEY'), '', 'checkpoint webhook secrets v1', 32),
  );
  return cachedKey;
}

/**
 * A stored secret this process cannot read: tampered, truncated, or
 * encrypted under another APP_ENCRYPTION_KEY. `code` is what the delivery log
 * shows for the attempt it stopped.
 */
export class SecretDecryptError extends Error {
  readonly code = 'signing_secret_unreadable';
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

/** Throws SecretDecryptError when the value was not produced with this key (tampered, or the key changed). */
export function decryptSecret(stored: string): string {
  const [prefix, iv, tag, ct] = stored.split(':');
  if (prefix !== PREFIX || !iv || !tag || ct === undefined) {
    throw new SecretDecryptError('the stored webhook secret is not in the encrypted format');
  }
  const k = key();
  try {
    const decipher = createDecipheriv('aes-256-gcm', k, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(ct, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  } catch (err) {
    // GCM only says "Unsupported state or unable to authenticate data": say what it means here.
    throw new SecretDecryptError(
      `the stored webhook secret cannot be decrypted with this process's APP_ENCRYPTION_KEY (${err instanceof Error ? err.message : String(err)})`,
    );
  }
}
