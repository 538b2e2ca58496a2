import { describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  signedHeaders,
  signOne,
  verifyWebhook,
} from '@/lib/server/webhooks/signing';

const BODY = '{"type":"approval.resolved","data":{"ticket_id":"t"}}';
const NOW = new Date('2026-12-02T10:00:00Z');

describe('Standard Webhooks signatures', () => {
  it('matches the Standard Webhooks reference vector byte for byte', () => {
    // From the standard-webhooks reference libraries' test suite, not from this code.
    const sig = signOne(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(sig).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('a good signature verifies; a changed body, id or secret does not', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const h = signedHeaders([secret], 'msg_1', BODY, NOW);
    expect(h['webhook-timestamp']).toBe(String(NOW.getTime() / 1000));
    expect(verifyWebhook(secret, { ...h }, BODY, NOW)).toEqual({ ok: true });
    expect(verifyWebhook(secret, { ...h }, `${BODY} `, NOW)).toEqual({
      ok: false,
      reason: 'signature_invalid',
    });
    expect(verifyWebhook(secret, { ...h, 'webhook-id': 'msg_2' }, BODY, NOW)).toMatchObject({
      reason: 'signature_invalid',
    });
    expect(verifyWebhook(generateWebhookSecret(), { ...h }, BODY, NOW)).toMatchObject({
      reason: 'signature_invalid',
    });
    expect(verifyWebhook(secret, { 'webhook-id': 'msg_1' }, BODY, NOW)).toMatchObject({
      reason: 'headers_missing',
    });
  });

  it('a stale timestamp is refused even with a valid signature (replay)', () => {
    const secret = generateWebhookSecret();
    const old = new Date(NOW.getTime() - 6 * 60_000);
    const h = signedHeaders([secret], 'msg_1', BODY, old);
    expect(verifyWebhook(secret, { ...h }, BODY, NOW)).toEqual({
      ok: false,
      reason: 'timestamp_stale',
    });
    const future = signedHeaders([secret], 'msg_1', BODY, new Date(NOW.getTime() + 6 * 60_000));
    expect(verifyWebhook(secret, { ...future }, BODY, NOW)).toMatchObject({
      reason: 'timestamp_stale',
    });
  });

  it('during a rotation both secrets sign, so receivers on either one accept', () => {
    const oldSecret = generateWebhookSecret();
    const newSecret = generateWebhookSecret();
    const h = signedHeaders([newSecret, oldSecret], 'msg_rot', BODY, NOW);
    const parts = h['webhook-signature'].split(' ');
    expect(parts).toHaveLength(2);
    expect(parts.every((p) => p.startsWith('v1,'))).toBe(true);
    expect(verifyWebhook(oldSecret, { ...h }, BODY, NOW)).toEqual({ ok: true });
    expect(verifyWebhook(newSecret, { ...h }, BODY, NOW)).toEqual({ ok: true });
    expect(verifyWebhook(generateWebhookSecret(), { ...h }, BODY, NOW).ok).toBe(false);
  });

  it('refuses to sign without a secret or with a malformed one', () => {
    expect(() => signedHeaders([], 'msg', BODY)).toThrow('no signing secret');
    expect(() => signOne('not-a-secret', 'msg', 1, BODY)).toThrow('whsec_');
  });
});
