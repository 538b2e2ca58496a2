import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DecisionError, decideTicket } from '@/lib/server/approvals/decide';
import {
  configureTicketEvents,
  onTicketEvent,
  type TicketEvent,
} from '@/lib/server/approvals/events';
import { RESOLVER_MARGIN_MS } from '@/lib/server/approvals/resolver-phase';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { jobRegistry } from '@/lib/server/jobs/handlers';
import { createLogger } from '@/lib/server/logger';
import { processJob } from '@/lib/server/queue/worker';
import { saveGlobalSlackSettings } from '@/lib/server/slack/settings';
import { saveWebhook } from '@/lib/server/webhooks/webhooks';
import {
  approvalRequest,
  hostWithKey,
  post,
  transferContext,
  userWith,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';
import { clearSlackEnv } from './slack-env';
import { Receiver } from './webhooks-fixtures';

const { standIn } = await vi.hoisted(async () => {
  const { startSlackStandIn } = await import('./slack-env');
  return { standIn: await startSlackStandIn() };
});
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

const quiet = createLogger({ level: 'silent' });

/** Runs one job as the worker would, without Redis: each step is explicit. */
async function run(name: string, ticketId: string) {
  return processJob(
    { name, data: { ticketId }, id: `${name}.${ticketId}`, attemptsMade: 0 },
    { db: await testDb(), registry: jobRegistry, log: quiet },
  );
}

type Answer = { outcome: string; verdict?: unknown } | 'not_json';

/**
 * Issue 6: a host's resolver holds each new ticket first. Reviewers (web and
 * Slack) wait until it decides, hands over, or its phase ends by time; Slack
 * only ever sees tickets that reach people.
 */
describe('resolver phase: the resolver first, then people (issue 6)', () => {
  let host: { id: string; key: string };
  let reviewer: { id: string };
  let answer: Answer;
  let delay = 0;
  let service: Receiver;
  const events: TicketEvent[] = [];
  let off: () => void;

  beforeAll(async () => {
    const { url, prefix } = testRedis();
    await configureTicketEvents({ redisUrl: url, channel: `${prefix}tickets-handover` });
    off = onTicketEvent((e) => events.push(e));
  });
  beforeEach(async () => {
    await truncateAll();
    standIn.reset();
    events.length = 0;
    delay = 0;
    answer = { outcome: 'unresolved' };
    host = await hostWithKey('policy-host');
    reviewer = await userWith('rita@example.com', ['reviewer']);
    await saveGlobalSlackSettings(await testDb(), { channel: '#approvals' });
    service = new Receiver((r) => {
      const req = JSON.parse(r.body);
      const testCase = r.headers['webhook-test-case'];
      if (r.headers['webhook-test'] === 'true') {
        const outcome = testCase === 'identity_echo' ? 'unresolved' : testCase;
        const verdict =
          outcome === 'approve'
            ? { decision: 'allow' }
            : outcome === 'reject'
              ? { decision: 'deny', reason: 'policy:no', message: 'no' }
              : undefined;
        return {
          status: 200,
          body: JSON.stringify({ outcome, context_identity: req.context_identity, verdict }),
        };
      }
      const body =
        answer === 'not_json'
          ? 'nope'
          : JSON.stringify({ ...answer, context_identity: req.context_identity });
      return { status: 200, body, delayMs: delay };
    });
    await service.start();
  });
  afterEach(() => service.stop());
  afterAll(async () => {
    off();
    await stopApprovalsRuntime();
    await closeTestDb();
    await standIn.stop();
    clearSlackEnv();
  });

  async function withResolverWebhook(timeoutMs: number) {
    const saved = await saveWebhook(
      { hostId: host.id, kind: 'resolver', url: `${service.url}/resolve`, timeoutMs },
      null,
    );
    expect(saved.webhook.enabled).toBe(true);
  }

  async function newTicket(extra?: Record<string, unknown>) {
    const body = approvalRequest(transferContext(), { extra });
    const res = await post(host.key, body);
    expect(res.status).toBe(201);
    return { id: res.body.id as string, identity: body.context_identity as string };
  }

  async function state(id: string) {
    const prisma = await testDb();
    return prisma.approvalTicket.findUniqueOrThrow({
      where: { id },
      select: {
        status: true,
        createdAt: true,
        resolverUntil: true,
        slackChannel: true,
        decision: { select: { decidedByKind: true } },
      },
    });
  }

  const decideAs = (
    t: { id: string; identity: string },
    kind: 'human' | 'slack' = 'human',
  ): Promise<unknown> =>
    decideTicket({
      ticketId: t.id,
      actor: { kind, userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: t.identity,
    }).catch((e: unknown) => e);

  async function slackPostRow(id: string) {
    const prisma = await testDb();
    return prisma.outboxEvent.findUnique({ where: { dedupeKey: `slack.post.${id}` } });
  }

  const slackPosts = () => standIn.to('/api/chat.postMessage');

  it('people are refused with_resolver (409) during the phase, changing nothing; the resolver is not', async () => {
    await withResolverWebhook(5_000);
    const t = await newTicket();
    const before = await state(t.id);
    expect(before.resolverUntil?.getTime()).toBe(
      before.createdAt.getTime() + 5_000 + RESOLVER_MARGIN_MS,
    );
    for (const kind of ['human', 'slack'] as const) {
      const err = await decideAs(t, kind);
      expect(err).toBeInstanceOf(DecisionError);
      expect(err).toMatchObject({ code: 'with_resolver', status: 409 });
      expect((err as Error).message).toContain(before.resolverUntil?.toISOString());
    }
    const prisma = await testDb();
    expect(await state(t.id)).toEqual(before);
    expect(await prisma.decision.count()).toBe(0);
    expect(await prisma.auditEvent.count({ where: { action: 'approval.decided' } })).toBe(0);
    // The resolver actor is not held back.
    await decideTicket({
      ticketId: t.id,
      actor: { kind: 'resolver' },
      outcome: 'approve',
      contextIdentity: t.identity,
    });
    expect((await state(t.id)).decision?.decidedByKind).toBe('resolver');
  });

  it('resolver approves: decided by the resolver, and Slack never sees the ticket', async () => {
    await withResolverWebhook(5_000);
    answer = { outcome: 'approve', verdict: { decision: 'allow' } };
    const t = await newTicket();
    const { resolverUntil } = await state(t.id);
    await run('approvals.created', t.id);
    // The post waits for the end of the phase.
    expect((await slackPostRow(t.id))?.availableAt).toEqual(resolverUntil);
    await run('webhooks.resolve', t.id);
    const after = await state(t.id);
    expect(after).toMatchObject({ status: 'approved', decision: { decidedByKind: 'resolver' } });
    await run('slack.post', t.id);
    await run('approvals.resolved', t.id);
    await run('slack.update', t.id);
    expect(standIn.to('/api/')).toHaveLength(0);
    expect((await state(t.id)).slackChannel).toBeNull();
  });

  it.each([
    ['unresolved', { outcome: 'unresolved' } as Answer, 0],
    ['an invalid answer', 'not_json' as Answer, 0],
    ['a timeout', { outcome: 'approve', verdict: { decision: 'allow' } } as Answer, 2_000],
  ])('%s hands the ticket over at once: people decide, Slack gets the post', async (_n, a, d) => {
    await withResolverWebhook(800);
    answer = a;
    delay = d;
    const t = await newTicket();
    await run('approvals.created', t.id);
    expect((await slackPostRow(t.id))?.availableAt.getTime()).toBeGreaterThan(Date.now());
    events.length = 0;
    await run('webhooks.resolve', t.id);
    const after = await state(t.id);
    expect(after).toMatchObject({ status: 'pending', resolverUntil: null });
    expect(events).toContainEqual({ type: 'created', ticketId: t.id, hostId: host.id });
    // The deferred post is due now, under the same key.
    expect((await slackPostRow(t.id))?.availableAt.getTime()).toBeLessThanOrEqual(Date.now());
    await run('slack.post', t.id);
    expect(slackPosts()).toHaveLength(1);
    expect(await decideAs(t)).toMatchObject({ status: 'approved' });
    expect((await state(t.id)).decision?.decidedByKind).toBe('human');
  });

  it('the resolver job never runs: the phase ends by time alone', async () => {
    await withResolverWebhook(500);
    const t = await newTicket();
    const { resolverUntil } = await state(t.id);
    expect(await decideAs(t)).toMatchObject({ code: 'with_resolver' });
    // A post that runs early (it should not) is retried, never dropped or sent.
    await expect(run('slack.post', t.id)).rejects.toThrow(/still with the resolver/);
    expect(slackPosts()).toHaveLength(0);
    const wait = (resolverUntil?.getTime() ?? 0) - Date.now() + 50;
    await new Promise((r) => setTimeout(r, wait));
    // A consultation after the phase would race people: it does not happen.
    await run('webhooks.resolve', t.id);
    expect(service.received.filter((r) => !r.headers['webhook-test'])).toHaveLength(0);
    expect(await decideAs(t)).toMatchObject({ status: 'approved' });
  });

  it('a host without a resolver is unaffected: no phase, people decide at once, posted at once', async () => {
    const t = await newTicket();
    expect((await state(t.id)).resolverUntil).toBeNull();
    await run('approvals.created', t.id);
    expect((await slackPostRow(t.id))?.availableAt.getTime()).toBeLessThanOrEqual(Date.now());
    const prisma = await testDb();
    expect(
      await prisma.outboxEvent.count({ where: { dedupeKey: `webhooks.resolve.${t.id}` } }),
    ).toBe(0);
    expect(await decideAs(t)).toMatchObject({ status: 'approved' });
  });

  it('a deadline too close for a phase skips it: the ticket goes straight to people', async () => {
    await withResolverWebhook(30_000);
    // 90 s of life: a 32 s phase would leave people less than half of it.
    const t = await newTicket({ timeout_ms: 90_000 });
    expect((await state(t.id)).resolverUntil).toBeNull();
    await run('approvals.created', t.id);
    const prisma = await testDb();
    expect(
      await prisma.outboxEvent.count({ where: { dedupeKey: `webhooks.resolve.${t.id}` } }),
    ).toBe(0);
    expect(await decideAs(t)).toMatchObject({ status: 'approved' });
  });
});
