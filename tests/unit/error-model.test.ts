import { NextRequest } from 'next/server';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { DecisionError, IntakeError } from '@/lib/server/approvals/errors';
import { actionErrorState } from '@/lib/server/http/action-state';
import { ApiError, AppError } from '@/lib/server/http/api-error';
import { route } from '@/lib/server/http/route';
import { OutboxError } from '@/lib/server/queue/outbox';
import { WebhookError } from '@/lib/server/webhooks/errors';

// One coded error, one body reader, one wrapper, one action helper (issue 12, item 2).
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

const ctx = () => ({ params: Promise.resolve({}) });
const post = (body: BodyInit, type = 'application/json') =>
  new NextRequest('http://localhost/api/x', {
    method: 'POST',
    body,
    headers: { 'content-type': type },
  });
const errorOf = async (res: Response) => ({ status: res.status, ...(await res.json()).error });

describe('AppError and its families', () => {
  it('take their status from the table, so a code has one status everywhere', () => {
    expect(new IntakeError('identity_mismatch', 'x').status).toBe(422);
    expect(new DecisionError('identity_stale', 'x').status).toBe(409);
    expect(new WebhookError('not_found', 'x').status).toBe(404);
    for (const e of [
      new IntakeError('json_invalid', 'x'),
      new DecisionError('expired', 'x'),
      new WebhookError('webhook_url_blocked', 'x'),
      new OutboxError('outbox_kind_unknown', 'x'),
    ]) {
      expect(e).toBeInstanceOf(AppError);
      expect(e).toBeInstanceOf(ApiError);
    }
  });

  it('takes its status from the table', () => {
    expect(new AppError('nul_character', 'x').status).toBe(422);
    expect(new AppError('identity_stale', 'x').status).toBe(409);
  });
});

describe('the one JSON body reader, through route()', () => {
  const echo = route({ auth: 'public', body: z.object({ a: z.number() }) }, ({ body }) => body);

  it('refuses duplicate members and integers past 2^53 as value_domain (§4.4)', async () => {
    expect(await errorOf(await echo(post('{"a":1,"a":2}'), ctx()))).toMatchObject({
      status: 400,
      code: 'value_domain',
    });
    expect(await errorOf(await echo(post('{"a":9007199254740993}'), ctx()))).toMatchObject({
      status: 400,
      code: 'value_domain',
    });
  });

  it('refuses bytes that are not UTF-8, and an empty body, as json_invalid', async () => {
    const bad = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0xff, 0x7d]);
    expect(await errorOf(await echo(post(bad), ctx()))).toMatchObject({ code: 'json_invalid' });
    expect(await errorOf(await echo(post(''), ctx()))).toMatchObject({ code: 'json_invalid' });
  });

  it('size-guards a raw form body (Slack) before reading it', async () => {
    const form = route({ auth: 'public', text: 'form', maxBodyBytes: 8 }, ({ text }) => ({ text }));
    const big = await form(post('payload=0123456789', 'application/x-www-form-urlencoded'), ctx());
    expect(await errorOf(big)).toMatchObject({ status: 413, code: 'payload_too_large' });
    const ok = await form(post('a=1', 'application/x-www-form-urlencoded'), ctx());
    expect(await ok.json()).toEqual({ text: 'a=1' });
  });

  it('answers an internal AppError (status 500) as a bare internal, never its message', async () => {
    const bug = route({ auth: 'public' }, () => {
      throw new OutboxError('outbox_payload_invalid', 'secret detail');
    });
    const res = await bug(post('{}'), ctx());
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text).error.code).toBe('internal');
    expect(text).not.toContain('secret detail');
  });
});

describe('actionErrorState, the one server-action helper', () => {
  it('turns any AppError into form state, with its fields or the named field', () => {
    const err = new WebhookError('webhook_url_scheme', 'Use https.');
    expect(actionErrorState(err, { url: 'http://x' }, { fieldOf: () => 'url' })).toEqual({
      status: 'error',
      code: 'webhook_url_scheme',
      message: 'Use https.',
      fields: { url: { code: 'webhook_url_scheme', message: 'Use https.' } },
      values: { url: 'http://x' },
    });
    const described = actionErrorState(new DecisionError('expired', 'late'), undefined, {
      describe: () => 'Too late.',
    });
    expect(described).toMatchObject({ code: 'expired', message: 'Too late.' });
  });

  it('rethrows anything else (redirects, real failures, internal errors)', () => {
    expect(() => actionErrorState(new Error('boom'))).toThrow('boom');
    expect(() => actionErrorState(new OutboxError('outbox_kind_unknown', 'x'))).toThrow('x');
  });
});
