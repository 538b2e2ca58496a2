import 'server-only';
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Slack's request signing (v0): `v0=` + hex HMAC-SHA256 over
 * `v0:${timestamp}:${rawBody}` with the app's signing secret. Checked before
 * the body is even parsed; a timestamp outside ±5 minutes is refused, so a
 * captured request cannot be replayed later.
 */

export const SLACK_TIMESTAMP_WINDOW_S = 5 * 60;

export type SlackSignatureFailure =
  | 'slack_not_configured'
  | 'slack_signature_missing'
  | 'slack_signature_stale'
  | 'slack_signature_invalid';

export type SlackSignatureCheck = { ok: true } | { ok: false; code: SlackSignatureFailure };

export function slackSignature(secret: string, timestamp: string, rawBody: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}

export function verifySlackSignature(input: {
  secret: string | undefined;
  timestamp: string | null;
  signature: string | null;
  rawBody: string;
  nowMs?: number;
}): SlackSignatureCheck {
  if (!input.secret) return { ok: false, code: 'slack_not_configured' };
  if (!input.timestamp || !input.signature) return { ok: false, code: 'slack_signature_missing' };
  if (!/^\d{1,12}$/.test(input.timestamp)) return { ok: false, code: 'slack_signature_invalid' };
  const now = Math.floor((input.nowMs ?? Date.now()) / 1000);
  if (Math.abs(now - Number(input.timestamp)) > SLACK_TIMESTAMP_WINDOW_S) {
    return { ok: false, code: 'slack_signature_stale' };
  }
  const expected = Buffer.from(slackSignature(input.secret, input.timestamp, input.rawBody));
  const given = Buffer.from(input.signature);
  // timingSafeEqual throws on a length difference; that difference is no secret.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, code: 'slack_signature_invalid' };
  }
  return { ok: true };
}
