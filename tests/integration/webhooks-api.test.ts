import { NextRequest } from 'next/server';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST as rotate } from '@/app/api/v1/webhooks/[kind]/rotate/route';
import { DELETE as del, PUT as put } from '@/app/api/v1/webhooks/[kind]/route';
import { POST as redeliverRoute } from '@/app/api/v1/webhooks/deliveries/[id]/redeliver/route';
import { GET as getDeliveries } from '@/app/api/v1/webhooks/deliveries/route';
import { GET as getHooks } from '@/app/api/v1/webhooks/route';
import { hostWithKey } from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { type Received, Receiver } from './webhooks-fixtures';

vi.hoisted(() => {
  process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
});
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

type Handler = (
  req: NextRequest,
  ctx: { params: Promise<Record<string, string>> },
) => Promise<Response>;

async function call(
  h: Handler,
  key: string,
  method: string,
  params: Record<string, string>,
  body?: unknown,
) {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const req = new NextRequest('http://localhost/api/v1/webhooks', {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const res = await h(req, { params: Promise.resolve(params) });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: loose JSON in tests
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
}

describe('host webhooks API (/api/v1/webhooks)', () => {
  let host: { id: string; key: string };
  let receiver: Receiver;
  beforeEach(async () => {
    await truncateAll();
    host = await hostWithKey('api-host');
    receiver = new Receiver((r: Received) => {
      const req = JSON.parse(r.body);
      return {
        status: 200,
        body: JSON.stringify({
          outcome: 'unresolved',
          context_identity: req.context_identity ?? null,
        }),
      };
    });
    await receiver.start();
  });
  afterEach(() => receiver.stop());
  afterAll(closeTestDb);

  it('registers a callback: 201 with the secret once; GET never shows it', async () => {
    const res = await call(
      put,
      host.key,
      'PUT',
      { kind: 'callback' },
      { url: `${receiver.url}/cb` },
    );
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_/);
    expect(res.body.webhook).toMatchObject({ kind: 'callback', enabled: true, timeout_ms: 5000 });
    const again = await call(
      put,
      host.key,
      'PUT',
      { kind: 'callback' },
      { url: `${receiver.url}/cb2` },
    );
    expect(again.status).toBe(200);
    expect(again.body.secret).toBeUndefined();
    const list = await call(getHooks, host.key, 'GET', {});
    expect(list.body.callback.url).toBe(`${receiver.url}/cb2`);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    const rotated = await call(
      rotate,
      host.key,
      'POST',
      { kind: 'callback' },
      { overlap_seconds: 60 },
    );
    expect(rotated.body.secret).toMatch(/^whsec_/);
    const after = await call(getHooks, host.key, 'GET', {});
    expect(after.body.callback.secrets).toHaveLength(2);
  });

  it('refuses blocked URLs, unknown kinds and bad bodies with stable codes, changing nothing', async () => {
    const blocked = await call(
      put,
      host.key,
      'PUT',
      { kind: 'callback' },
      { url: 'https://169.254.169.254/' },
    );
    expect(blocked).toMatchObject({
      status: 400,
      body: { error: { code: 'webhook_url_blocked' } },
    });
    const http = await call(
      put,
      host.key,
      'PUT',
      { kind: 'callback' },
      { url: 'http://10.0.0.1/' },
    );
    expect(http.body.error.code).toBe('webhook_url_scheme');
    const kind = await call(put, host.key, 'PUT', { kind: 'nope' }, { url: `${receiver.url}/x` });
    expect(kind.body.error.code).toBe('webhook_kind_invalid');
    const extra = await call(
      put,
      host.key,
      'PUT',
      { kind: 'callback' },
      { url: `${receiver.url}/x`, evil: 1 },
    );
    expect(extra.status).toBe(400);
    expect(await (await testDb()).webhook.count()).toBe(0);
    const none = await call(del, host.key, 'DELETE', { kind: 'resolver' });
    expect(none).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    const nokey = await call(getHooks, 'ck_wrong', 'GET', {});
    expect(nokey.status).toBe(401);
  });

  it('a resolver is self-tested at registration; one host cannot see or redeliver another host’s deliveries', async () => {
    const res = await call(
      put,
      host.key,
      'PUT',
      { kind: 'resolver' },
      { url: `${receiver.url}/r`, timeout_ms: 2000 },
    );
    expect(res.status).toBe(201);
    // The stand-in answers `unresolved` to every case: valid, echoed, so enabled.
    expect(res.body.self_test.ok).toBe(true);
    expect(res.body.self_test.cases.map((c: { matched: boolean }) => c.matched)).toEqual([
      false,
      false,
      true,
      true,
    ]);
    const other = await hostWithKey('other-host');
    const prisma = await testDb();
    const hook = await prisma.webhook.findFirstOrThrow({ where: { hostId: host.id } });
    const d = await prisma.webhookDelivery.create({
      data: {
        webhookId: hook.id,
        messageId: 'msg_x',
        eventType: 'approval.resolved',
        payload: {},
        status: 'dead',
      },
    });
    expect((await call(getDeliveries, other.key, 'GET', {})).body.deliveries).toEqual([]);
    const theirs = await call(redeliverRoute, other.key, 'POST', { id: d.id });
    expect(theirs).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    const junk = await call(redeliverRoute, host.key, 'POST', { id: 'not-a-uuid' });
    expect(junk.body.error.code).toBe('not_found');
    const mine = await call(getDeliveries, host.key, 'GET', {});
    expect(mine.body.deliveries).toHaveLength(1);
    expect(mine.body.deliveries[0]).toMatchObject({ webhook_id: 'msg_x', status: 'dead' });
  });
});
