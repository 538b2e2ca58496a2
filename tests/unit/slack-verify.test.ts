import { describe, expect, it } from 'vitest';
import { slackSignature, verifySlackSignature } from '@/lib/server/slack/verify';

// Slack's documented example ("Verifying requests from Slack"); the expected
// signature is Slack's, cross-checked with `openssl dgst -sha256 -hmac`.
const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const TS = '1531420618';
const BODY =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const SIG = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
const AT = Number(TS) * 1000;

const check = (over: Partial<Parameters<typeof verifySlackSignature>[0]>) =>
  verifySlackSignature({
    secret: SECRET,
    timestamp: TS,
    signature: SIG,
    rawBody: BODY,
    nowMs: AT,
    ...over,
  });

describe('Slack v0 request signatures', () => {
  it('computes Slack’s documented signature byte for byte', () => {
    expect(slackSignature(SECRET, TS, BODY)).toBe(SIG);
  });

  it('accepts the documented request inside the window, on both edges', () => {
    expect(check({})).toEqual({ ok: true });
    expect(check({ nowMs: AT + 300_000 })).toEqual({ ok: true });
    expect(check({ nowMs: AT - 300_000 })).toEqual({ ok: true });
  });

  it('refuses a request older or newer than 5 minutes, however well signed', () => {
    expect(check({ nowMs: AT + 301_000 })).toEqual({ ok: false, code: 'slack_signature_stale' });
    expect(check({ nowMs: AT - 301_000 })).toEqual({ ok: false, code: 'slack_signature_stale' });
  });

  it('refuses one changed byte of body, signature or secret', () => {
    expect(check({ rawBody: BODY.replace('foobar', 'foobaz') }).ok).toBe(false);
    expect(check({ signature: `${SIG.slice(0, -1)}4` })).toEqual({
      ok: false,
      code: 'slack_signature_invalid',
    });
    expect(check({ signature: SIG.toUpperCase() }).ok).toBe(false);
    expect(check({ signature: SIG.slice(0, -2) }).ok).toBe(false);
    expect(check({ secret: `${SECRET}x` }).ok).toBe(false);
  });

  it('refuses missing headers, a malformed timestamp, and a missing secret', () => {
    expect(check({ signature: null })).toEqual({ ok: false, code: 'slack_signature_missing' });
    expect(check({ timestamp: null })).toEqual({ ok: false, code: 'slack_signature_missing' });
    expect(check({ timestamp: '1531420618.5' })).toEqual({
      ok: false,
      code: 'slack_signature_invalid',
    });
    expect(check({ secret: undefined })).toEqual({ ok: false, code: 'slack_not_configured' });
  });
});
