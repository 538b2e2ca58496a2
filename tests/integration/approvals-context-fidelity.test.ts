import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type AgentContext,
  applyTransform,
  buildContext,
  canonicalJson,
  jcsSha256,
  validateResolution,
} from '@checkpoint/agent-hooks';
import { decideTicket } from '@/lib/server/approvals/decide';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { getInboxTicket } from '@/lib/server/approvals/inbox';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { targetSummary } from '@/lib/server/slack/blocks';
import { loadSlackTicket } from '@/lib/server/slack/ticket-view';
import { consultResolver } from '@/lib/server/webhooks/resolver';
import { saveWebhook } from '@/lib/server/webhooks/webhooks';
import { approvalRequest, hostWithKey, poll, post, userWith } from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';
import { Receiver } from './webhooks-fixtures';

vi.hoisted(() => {
  process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
});
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/**
 * Item 6: members named "__proto__", "constructor" and "prototype" are plain
 * JSON that the identity covers (§10.2); the reviewer, the resolver and the
 * decision must see them exactly. Prisma's Json input used to drop
 * "__proto__", so reviewers approved content they never saw.
 */

/** Tool arguments as an agent's JSON would carry them (JSON.parse keeps own "__proto__"). */
const ARGS_TEXT =
  '{"to":"ACME GmbH","amount":25000,"__proto__":{"isAdmin":true,"constructor":{"prototype":{"x":1}}},' +
  '"constructor":"c","prototype":["p",{"__proto__":"deep"}]}';

function hostileContext(): AgentContext {
  return buildContext(
    'pre_tool_call',
    {
      spec: 'agent-hooks/0.1',
      timestamp: '2026-12-02T10:00:00.000Z',
      sequence: 7,
      agent: { id: 'billing-bot', framework: 'demo' },
      session: { id: 'sess-proto' },
    },
    { tool_call: { id: 'call-proto', name: 'wire_transfer', args: JSON.parse(ARGS_TEXT) } },
  );
}

/** The liftable deny reviewers also see, with a "__proto__" member of its own. */
const VERDICT = JSON.parse(
  '{"decision":"deny","reason":"needs_review","message":"Review.","approval":{},' +
    '"extensions":{"acme":{"__proto__":{"policy":"p1"}}}}',
);

const own = (v: unknown, k: string) => Object.hasOwn(v as object, k);

describe('approval context fidelity (members the JS object model treats specially)', () => {
  let host: { id: string; key: string };
  let context: AgentContext;
  let identity: string;
  let ticketId: string;

  beforeAll(async () => {
    const { url, prefix } = testRedis();
    await configureTicketEvents({ redisUrl: url, channel: `${prefix}tickets` });
  });
  beforeEach(async () => {
    await truncateAll();
    host = await hostWithKey('billing');
    context = hostileContext();
    // The fixture itself must carry the members, or the test proves nothing.
    expect(own(context.target, '__proto__')).toBe(true);
    const body = approvalRequest(context, { extra: { verdict: VERDICT } });
    identity = body.context_identity as string;
    const res = await post(host.key, body);
    expect(res.status).toBe(201);
    ticketId = res.body.id;
  });
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  it('stores the exact canonical text the identity covers, and the Json column agrees', async () => {
    const prisma = await testDb();
    const row = await prisma.approvalTicket.findUniqueOrThrow({
      where: { id: ticketId },
      select: { contextJson: true, context: true },
    });
    expect(row.contextJson).toBe(canonicalJson(context));
    expect(row.contextJson).toContain(
      '"__proto__":{"constructor":{"prototype":{"x":1}},"isAdmin":true}',
    );
    expect(row.contextJson).toContain('"prototype":["p",{"__proto__":"deep"}]');
    // Re-hashing what is stored reproduces the host's identity.
    expect(jcsSha256.compute(JSON.parse(row.contextJson as string))).toBe(identity);
    // The Json column (read by Slack and queries) holds the same members.
    expect(canonicalJson(row.context)).toBe(row.contextJson);
  });

  it('the ticket page view-model carries every member, and re-hashes to the identity', async () => {
    const view = await getInboxTicket(ticketId);
    expect(view).not.toBeNull();
    const shown = view?.context as AgentContext;
    const target = shown.target as Record<string, unknown>;
    expect(own(target, '__proto__')).toBe(true);
    expect(canonicalJson(Object.getOwnPropertyDescriptor(target, '__proto__')?.value)).toBe(
      '{"constructor":{"prototype":{"x":1}},"isAdmin":true}',
    );
    expect(target.constructor).toBe('c');
    const call = shown.tool_call as { args: Record<string, unknown> };
    expect(own(call.args, '__proto__')).toBe(true);
    expect(jcsSha256.compute(shown)).toBe(identity);
    // The verdict shown beside it keeps its members too.
    expect(canonicalJson(view?.verdict)).toBe(canonicalJson(VERDICT));
    expect(canonicalJson(view?.verdict)).toContain('"__proto__":{"policy":"p1"}');
  });

  it('Slack reads the members too (its message shows the target)', async () => {
    const slack = await loadSlackTicket(await testDb(), ticketId);
    expect(targetSummary(slack?.context, 10_000)).toContain('"__proto__":{"isAdmin":true');
  });

  it('approve: the host’s identity echo check passes', async () => {
    const reviewer = await userWith('rita@example.com', ['reviewer']);
    await decideTicket({
      ticketId,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: identity,
    });
    const answer = await poll(host.key, ticketId, 1);
    expect(answer.status).toBe(200);
    expect(validateResolution(answer.body, identity).ok).toBe(true);
  });

  it('approve with an edit inside "__proto__": applied to the stored context, the echo holds', async () => {
    const reviewer = await userWith('rita@example.com', ['reviewer']);
    await decideTicket({
      ticketId,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: identity,
      edit: { path: '$target.__proto__.isAdmin', value: false },
    });
    const answer = await poll(host.key, ticketId, 1);
    expect(answer.status).toBe(200);
    const checked = validateResolution(answer.body, identity);
    expect(checked.ok).toBe(true);
    expect(answer.body.verdict).toEqual({
      decision: 'transform',
      transform: { path: '$target.__proto__.isAdmin', value: false },
      // Issue 13: the pointer to the decision's signed receipt (§5.3).
      evidence: expect.objectContaining({
        artefact: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      }),
    });
    // The host applies it to its own context: the member it hashed is the one changed.
    const applied = applyTransform(context, answer.body.verdict.transform);
    expect(applied.ok).toBe(true);
  });

  it('approve with an edit whose value has a "__proto__" member: the host receives it whole', async () => {
    const reviewer = await userWith('rita@example.com', ['reviewer']);
    const value = JSON.parse('{"__proto__":{"role":"viewer"},"constructor":1}');
    await decideTicket({
      ticketId,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: identity,
      edit: { path: '$target.to', value },
    });
    const answer = await poll(host.key, ticketId, 1);
    expect(validateResolution(answer.body, identity).ok).toBe(true);
    const sent = answer.body.verdict.transform.value;
    expect(own(sent, '__proto__')).toBe(true);
    expect(canonicalJson(sent)).toBe('{"__proto__":{"role":"viewer"},"constructor":1}');
  });
});

describe('the resolver webhook receives the exact context', () => {
  let service: Receiver;
  beforeEach(async () => {
    await truncateAll();
    service = new Receiver((r) => {
      const req = JSON.parse(r.body);
      if (r.headers['webhook-test'] === 'true') {
        const testCase = r.headers['webhook-test-case'];
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
      return {
        status: 200,
        body: JSON.stringify({ outcome: 'unresolved', context_identity: req.context_identity }),
      };
    });
    await service.start();
  });
  afterEach(() => service.stop());

  it('its body holds "__proto__" and re-hashes to the identity', async () => {
    const host = await hostWithKey('policy-host');
    const saved = await saveWebhook(
      { hostId: host.id, kind: 'resolver', url: `${service.url}/resolve`, timeoutMs: 800 },
      null,
    );
    expect(saved.webhook.enabled).toBe(true);
    const body = approvalRequest(hostileContext());
    const res = await post(host.key, body);
    expect(res.status).toBe(201);
    await consultResolver(res.body.id);
    const sent = service.received.filter((r) => !r.headers['webhook-test']);
    expect(sent).toHaveLength(1);
    const request = JSON.parse(sent[0].body);
    expect(own(request.context.target, '__proto__')).toBe(true);
    expect(jcsSha256.compute(request.context)).toBe(body.context_identity);
  });
});
