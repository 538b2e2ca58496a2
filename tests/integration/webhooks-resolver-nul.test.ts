import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { consultResolver } from '@/lib/server/webhooks/resolver';
import { saveWebhook } from '@/lib/server/webhooks/webhooks';
import { approvalRequest, hostWithKey, post, transferContext } from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';
import { Receiver } from './webhooks-fixtures';

vi.hoisted(() => {
  process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
});
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/**
 * Issue 10 item 12 on the resolver webhook (§9): an answer that is a valid
 * resolution but carries U+0000 where the decision would store it (a
 * transform value, a rejection message) cannot be written. It is an invalid
 * answer like any other: the ticket goes to the reviewers, never a 500 loop.
 */

type Verdict = Record<string, unknown>;
let answer: { outcome: string; verdict: Verdict };

/** Answers self-test cases as asked, real requests with `answer`, echoing the identity. */
function resolverService() {
  return new Receiver((r) => {
    const req = JSON.parse(r.body);
    const testCase = r.headers['webhook-test-case'];
    const reply = (outcome: string, verdict?: Verdict) => ({
      status: 200,
      body: JSON.stringify({ outcome, context_identity: req.context_identity, verdict }),
    });
    if (r.headers['webhook-test'] !== 'true') return reply(answer.outcome, answer.verdict);
    if (testCase === 'approve') return reply('approve', { decision: 'allow' });
    if (testCase === 'reject') return reply('reject', { decision: 'deny', reason: 'no' });
    return reply('unresolved');
  });
}

describe('resolver webhook answers holding U+0000', () => {
  let key: string;
  let service: Receiver;

  beforeAll(async () => {
    const { url, prefix } = testRedis();
    await configureTicketEvents({ redisUrl: url, channel: `${prefix}tickets` });
  });
  beforeEach(async () => {
    await truncateAll();
    const host = await hostWithKey('nul-resolver-host');
    key = host.key;
    service = resolverService();
    await service.start();
    const saved = await saveWebhook(
      { hostId: host.id, kind: 'resolver', url: `${service.url}/resolve`, timeoutMs: 800 },
      null,
    );
    expect(saved.webhook.enabled).toBe(true);
  });
  afterEach(() => service.stop());
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  it.each([
    [
      'a transform value',
      'approve',
      { decision: 'transform', transform: { path: '$target.to', value: 'AC\u0000ME' } },
    ],
    ['a rejection message', 'reject', { decision: 'deny', reason: 'no', message: 'n\u0000o' }],
  ])(
    '%s: invalid answer (nul_character), the ticket goes to reviewers',
    async (_n, outcome, verdict) => {
      answer = { outcome, verdict };
      const res = await post(key, approvalRequest(transferContext()));
      expect(res.status).toBe(201);
      expect(await consultResolver(res.body.id)).toEqual({
        outcome: 'invalid',
        reason: 'nul_character',
      });
      const prisma = await testDb();
      const ticket = await prisma.approvalTicket.findUniqueOrThrow({
        where: { id: res.body.id },
        select: { status: true, resolverUntil: true, decision: { select: { id: true } } },
      });
      expect(ticket.status).toBe('pending');
      expect(ticket.decision).toBeNull();
      // Handed over: the reviewers have it now.
      expect(ticket.resolverUntil?.getTime() ?? 0).toBeLessThanOrEqual(Date.now());
    },
  );
});
