import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks signing (standardwebhooks.com): the secret is
 * `whsec_<base64 key>`, the signed content `${id}.${timestamp}.${body}`, the
 * header `v1,<base64 HMAC-SHA256>`; several signatures are space-separated
 * (secret rotation). Pure, and free of `server-only` on purpose: receivers
 * in the end-to-end tests and the bench verify with it.
 */

export const SECRET_PREFIX = 'whsec_';
/** Receivers should refuse timestamps further than this from their clock. */
export const DEFAULT_TOLERANCE_S = 5 * 60;

export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('secret must start with whsec_');
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length < 16) throw new Error('secret key is too short');
  return key;
}

export function signOne(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`);
  return `v1,${mac.digest('base64')}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Headers for one attempt, signed with every active secret (old and new while rotating). */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  body: string,
  now = new Date(),
): SignedHeaders {
  if (secrets.length === 0) throw new Error('no signing secret');
  const ts = Math.floor(now.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': secrets.map((s) => signOne(s, id, ts, body)).join(' '),
  };
}

export type VerifyFailure =
  | 'headers_missing'
  | 'timestamp_invalid'
  | 'timestamp_stale'
  | 'signature_invalid';

/** What a receiver does: one matching v1 signature within the tolerance window. */
export function verifyWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  now = new Date(),
  toleranceS = DEFAULT_TOLERANCE_S,
): { ok: true } | { ok: false; reason: VerifyFailure } {
  const one = (k: string) => {
    const v = headers[k];
    return Array.isArray(v) ? v[0] : v;
  };
  const id = one('webhook-id');
  const ts = one('webhook-timestamp');
  const sig = one('webhook-signature');
  if (!id || !ts || !sig) return { ok: false, reason: 'headers_missing' };
  if (!/^\d{1,12}$/.test(ts)) return { ok: false, reason: 'timestamp_invalid' };
  if (Math.abs(now.getTime() / 1000 - Number(ts)) > toleranceS) {
    return { ok: false, reason: 'timestamp_stale' };
  }
  const expected = Buffer.from(signOne(secret, id, Number(ts), body));
  for (const candidate of sig.split(' ')) {
    const got = Buffer.from(candidate);
    if (got.length === expected.length && timingSafeEqual(got, expected)) return { ok: true };
  }
  return { ok: false, reason: 'signature_invalid' };
}
