import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { jcsSha256 } from '@checkpoint/agent-hooks';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import {
  approvalRequest,
  type Body,
  hostWithKey,
  LIFTABLE,
  poll,
  post,
  transferContext,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

const SECRET = 'DE89-3704-0044-0532-0130-00-PLANTED';

async function counts() {
  const prisma = await testDb();
  return {
    tickets: await prisma.approvalTicket.count(),
    outbox: await prisma.outboxEvent.count(),
  };
}

describe('POST /api/v1/approvals (§9 intake)', () => {
  let host: { id: string; key: string };

  beforeAll(async () => {
    const { url, prefix } = testRedis();
    await configureTicketEvents({ redisUrl: url, channel: `${prefix}tickets` });
  });
  beforeEach(async () => {
    await truncateAll();
    host = await hostWithKey('billing', { defaultTimeoutMs: 600_000, maxTimeoutMs: 3_600_000 });
  });
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  it('creates a pending ticket with its deadline, links, an expiry job and a fan-out job in one transaction', async () => {
    const ctx = transferContext();
    const before = Date.now();
    const res = await post(
      host.key,
      approvalRequest(ctx, { extra: { session: 'Invoice run', agent: 'Billing bot' } }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', context_identity: jcsSha256.compute(ctx) });
    expect(res.body.links.ui).toBe(`http://localhost/approvals/${res.body.id}`);
    const expires = Date.parse(res.body.expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(600_000 - 50);
    expect(expires - before).toBeLessThan(600_000 + 5_000);

    const prisma = await testDb();
    const t = await prisma.approvalTicket.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(t).toMatchObject({
      hostId: host.id,
      interceptionPoint: 'pre_tool_call',
      sessionId: 'sess-1',
      sequence: ctx.sequence,
      agentId: 'billing-bot',
      toolName: 'wire_transfer',
      reason: 'amount_over_threshold',
      sessionLabel: 'Invoice run',
      agentLabel: 'Billing bot',
      identityProvider: 'jcs-sha256',
    });
    const job = await prisma.outboxEvent.findFirstOrThrow({ where: { kind: 'approvals.expire' } });
    expect(job.payload).toEqual({ ticketId: t.id });
    expect(job.availableAt.getTime()).toBe(t.expiresAt.getTime());
    const fanout = await prisma.outboxEvent.findFirstOrThrow({
      where: { kind: 'approvals.created' },
    });
    // The host rides along for the relay's per-host priority (queue/relay.ts).
    expect([fanout.payload, fanout.dedupeKey]).toEqual([
      { ticketId: t.id, hostId: t.hostId },
      `approvals.created.${t.id}`,
    ]);
  });

  it('a request timeout_ms sets the deadline; above the host maximum it is refused', async () => {
    const ok = await post(
      host.key,
      approvalRequest(transferContext(), { extra: { timeout_ms: 5_000 } }),
    );
    expect(Date.parse(ok.body.expires_at) - Date.now()).toBeLessThanOrEqual(5_000);
    const tooLong = await post(
      host.key,
      approvalRequest(transferContext(), { extra: { timeout_ms: 3_600_001 } }),
    );
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe('timeout_invalid');
  });

  it('stores the host’s request_id for its callbacks; a malformed one is refused, nothing stored', async () => {
    const ok = await post(
      host.key,
      approvalRequest(transferContext(), { extra: { request_id: 'run-42/call-7' } }),
    );
    expect(ok.status).toBe(201);
    const prisma = await testDb();
    const t = await prisma.approvalTicket.findUniqueOrThrow({ where: { id: ok.body.id } });
    expect(t.requestId).toBe('run-42/call-7');
    await truncateAll();
    host = await hostWithKey('billing', { defaultTimeoutMs: 600_000, maxTimeoutMs: 3_600_000 });
    for (const bad of ['', 'has space', 'x'.repeat(201), 42]) {
      const res = await post(
        host.key,
        approvalRequest(transferContext(), { extra: { request_id: bad } }),
      );
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('request_id_invalid');
    }
    expect(await counts()).toEqual({ tickets: 0, outbox: 0 });
  });

  it('posting the same request again returns the same ticket (idempotent)', async () => {
    const body = approvalRequest(transferContext());
    const first = await post(host.key, body);
    const again = await post(host.key, body);
    const racing = await Promise.all([post(host.key, body), post(host.key, body)]);
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    for (const r of [again, ...racing]) expect(r.body.id).toBe(first.body.id);
    // The ticket's expiry job and its fan-out job, once.
    expect(await counts()).toEqual({ tickets: 1, outbox: 2 });
  });

  it('the same identity from another host is that host’s own ticket', async () => {
    const other = await hostWithKey('support');
    const body = approvalRequest(transferContext());
    const a = await post(host.key, body);
    const b = await post(other.key, body);
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
  });

  const ctx = transferContext();
  const good = approvalRequest(ctx);
  const bigInt = JSON.stringify(good).replace('"amount":25000', '"amount":9007199254740993');
  const cases: [string, string, unknown, string?][] = [
    ['not JSON', 'json_invalid', null, '{"context_identity":'],
    ['an integer beyond 2^53 (raw-text check, §4.4)', 'value_domain', null, bigInt],
    [
      'duplicate members (I-JSON)',
      'value_domain',
      null,
      JSON.stringify(good).replace('{', '{"verdict":{},'),
    ],
    ['an array body', 'request_invalid', [good]],
    ['an unknown member', 'request_invalid', { ...good, extra: 1 }],
    ['no context', 'request_invalid', { ...good, context: undefined }],
    ['a numeric identity', 'identity_invalid', { ...good, context_identity: 42 }],
    ['an unknown point (§3)', 'point_invalid', { ...good, interception_point: 'pre_lunch' }],
    [
      'a point that differs from the context’s',
      'point_invalid',
      { ...good, interception_point: 'output' },
    ],
    [
      'a verdict with a reserved reason (§5)',
      'verdict_invalid',
      { ...good, verdict: { ...LIFTABLE, reason: 'host_error:x' } },
    ],
    [
      'an allow (§5.1: not liftable)',
      'verdict_not_liftable',
      { ...good, verdict: { decision: 'allow' } },
    ],
    [
      'a plain deny (§5.1: not liftable)',
      'verdict_not_liftable',
      { ...good, verdict: { decision: 'deny' } },
    ],
    [
      'a context without session (§4.1)',
      'context_invalid',
      { ...good, context: { ...ctx, session: undefined } },
    ],
    [
      'a target that is not the args (§4.3)',
      'context_invalid',
      { ...good, context: { ...ctx, target: { amount: 1 } } },
    ],
    ['a label that is not a string', 'label_invalid', { ...good, session: 7 }],
    ['a timeout below a second', 'timeout_invalid', { ...good, timeout_ms: 10 }],
    [
      'a provider claiming the jcs prefix (§10.1)',
      'provider_invalid',
      { ...good, identity_provider: 'jcs-custom' },
    ],
  ];

  it.each(cases)('refuses %s with 400 %s and stores nothing', async (_what, code, body, raw) => {
    const res = await post(host.key, body, raw);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
    expect(await counts()).toEqual({ tickets: 0, outbox: 0 });
  });

  it('refuses a tampered identity with 422 identity_mismatch and stores nothing (§10.2)', async () => {
    const real = approvalRequest(transferContext());
    const tampered = { ...real, context: transferContext({ amount: 250 }) };
    tampered.context.sequence = real.context.sequence;
    const res = await post(host.key, tampered);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('identity_mismatch');
    expect(await counts()).toEqual({ tickets: 0, outbox: 0 });
  });

  it('a host-defined provider is taken at its word; null identities are accepted unbound', async () => {
    const custom = await post(
      host.key,
      approvalRequest(transferContext(), {
        identity: 'hmac-k1:abc',
        extra: { identity_provider: 'hmac-sha256-k1' },
      }),
    );
    expect(custom.status).toBe(201);
    const unbound = await post(host.key, approvalRequest(transferContext(), { identity: null }));
    expect(unbound.status).toBe(201);
    expect(unbound.body.context_identity).toBeNull();
  });

  it('refuses 415 without JSON, 413 past the size limit, 401 without a key', async () => {
    const { POST } = await import('@/app/api/v1/approvals/route');
    const { NextRequest } = await import('next/server');
    const plain = new NextRequest('http://localhost/api/v1/approvals', {
      method: 'POST',
      headers: { authorization: `Bearer ${host.key}`, 'content-type': 'text/plain' },
      body: '{}',
    });
    expect((await POST(plain, { params: Promise.resolve({}) })).status).toBe(415);
    const huge = approvalRequest(transferContext({ memo: 'x'.repeat(6 * 1024 * 1024) }), {
      identity: null,
    });
    const big = await post(host.key, huge);
    expect(big.status).toBe(413);
    expect((await post(null, approvalRequest(transferContext()))).status).toBe(401);
    expect(await counts()).toEqual({ tickets: 0, outbox: 0 });
  });

  describe('redaction (the host’s paths are applied before storage)', () => {
    let redacting: { id: string; key: string };
    beforeEach(async () => {
      redacting = await hostWithKey('payments', {
        redactionPaths: ['$target.iban', '$target.memo'],
      });
    });

    it('a host that redacts the same paths locally keeps its identity; the paths are listed', async () => {
      const ctx = transferContext({ iban: SECRET });
      const body = approvalRequest(ctx, { redact: ['$target.iban', '$target.memo'] });
      const res = await post(redacting.key, body);
      expect(res.status).toBe(201);
      expect(res.body.context_identity).toBe(body.context_identity);
      const prisma = await testDb();
      const t = await prisma.approvalTicket.findUniqueOrThrow({ where: { id: res.body.id } });
      expect((t.context as Body).target.iban).toBe('[redacted]');
      expect((t.context as Body).tool_call.args.iban).toBe('[redacted]');
      expect(t.redactedPaths).toEqual(['$target.iban']);
    });

    it('an identity over the unredacted secret is refused 422 redaction_required, naming paths only', async () => {
      const res = await post(redacting.key, approvalRequest(transferContext({ iban: SECRET })));
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('redaction_required');
      expect(JSON.stringify(res.body)).not.toContain(SECRET);
      expect(await counts()).toEqual({ tickets: 0, outbox: 0 });
    });

    it('never persists a planted secret: a raw scan of the ticket table finds nothing', async () => {
      // Identity-unbound requests are redacted by the server and stored.
      const res = await post(
        redacting.key,
        approvalRequest(transferContext({ iban: SECRET }), { identity: null }),
      );
      expect(res.status).toBe(201);
      await post(redacting.key, approvalRequest(transferContext({ iban: SECRET })));
      await post(
        redacting.key,
        approvalRequest(transferContext({ memo: SECRET }), { redact: ['$target.memo'] }),
      );
      const prisma = await testDb();
      const rows = await prisma.$queryRawUnsafe<{ row: string }[]>(
        'SELECT t::text AS row FROM "ApprovalTicket" t',
      );
      expect(rows.length).toBe(2);
      for (const { row } of rows) expect(row).not.toContain(SECRET);
      for (const table of ['OutboxEvent', 'AuditEvent', 'Decision']) {
        const hits = await prisma.$queryRawUnsafe<{ n: bigint }[]>(
          `SELECT count(*) AS n FROM "${table}" t WHERE t::text LIKE $1`,
          `%${SECRET}%`,
        );
        expect(Number(hits[0].n)).toBe(0);
      }
    });
  });

  it('host keys never decide: the host API has no decision endpoint', async () => {
    const ticketRoute = await import('@/app/api/v1/approvals/[id]/route');
    const collection = await import('@/app/api/v1/approvals/route');
    expect(Object.keys(ticketRoute)).toEqual(['GET']);
    expect(Object.keys(collection)).toEqual(['POST']);
  });

  it('GET is host-scoped: another host’s key gets 404, no key 401', async () => {
    const created = await post(host.key, approvalRequest(transferContext()));
    const other = await hostWithKey('other');
    expect((await poll(other.key, created.body.id)).status).toBe(404);
    expect((await poll(host.key, created.body.id)).status).toBe(202);
    expect((await poll(host.key, 'not-a-uuid')).status).toBe(404);
  });
});
