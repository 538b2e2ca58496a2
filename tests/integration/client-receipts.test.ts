import { generateKeyPairSync } from 'node:crypto';
import { NextRequest } from 'next/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpApprovalResolver, type HttpApprovalResolverOptions } from '@checkpoint/client';
import { type AgentContext, createHost, Verdict } from '@checkpoint/agent-hooks';
import { GET as jwksRoute } from '@/app/.well-known/jwks.json/route';
import { decideTicket } from '@/lib/server/approvals/decide';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { forgetActiveSigningKey } from '@/lib/server/signing/jws';
import { ApprovalsApp, type Body, hostWithKey, userWith } from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';

/**
 * Issue 13 item 2, the host's side: HttpApprovalResolver checks the receipt
 * that comes with a resolution against the app's published keys, over HTTP
 * against the real routes, and never lets an approval through whose receipt
 * fails (`unresolved`, which the host enforces as a deny).
 */

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

function threshold(ctx: AgentContext) {
  if (ctx.interception_point !== 'pre_tool_call') return Verdict.allow();
  const args = (ctx.tool_call as { args: { amount: number } }).args;
  return args.amount > 10_000 ? Verdict.escalate('amount_over_threshold') : Verdict.allow();
}

type Rewrite = (answer: Body) => Body;

describe('HttpApprovalResolver receipts', () => {
  const app = new ApprovalsApp();
  let baseUrl: string;
  let host: { id: string; key: string };
  let reviewer: { id: string };
  let fetched: string[];

  beforeAll(async () => {
    await configureTicketEvents({
      redisUrl: testRedis().url,
      channel: `${testRedis().prefix}tickets`,
    });
    baseUrl = await app.listen();
  });
  beforeEach(async () => {
    await truncateAll();
    forgetActiveSigningKey();
    host = await hostWithKey('remote');
    reviewer = await userWith('rita@example.com', ['reviewer']);
    fetched = [];
  });
  afterAll(async () => {
    await app.close();
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  /**
   * fetch to the app: the JWKS comes from its route handler (the test server
   * serves only the approval routes); `rewrite` changes a decided answer on
   * its way to the host (a tampering proxy, an app that sends no receipt).
   */
  function appFetch(rewrite?: Rewrite, jwks?: () => Promise<Response>): typeof fetch {
    return async (input, init) => {
      const url = String(input);
      fetched.push(url);
      if (new URL(url).pathname === '/.well-known/jwks.json') {
        return jwks ? jwks() : jwksRoute(new NextRequest(url), { params: Promise.resolve({}) });
      }
      const res = await fetch(input, init);
      if (!rewrite || init?.method !== 'GET' || res.status !== 200) return res;
      return Response.json(rewrite(await res.json()), { status: 200 });
    };
  }

  async function transfer(options: Partial<HttpApprovalResolverOptions>) {
    const received: number[] = [];
    const engine = createHost({
      agent: { id: 'billing-bot', framework: 'demo' },
      interceptors: [threshold],
      resolver: HttpApprovalResolver({
        baseUrl,
        apiKey: host.key,
        timeoutMs: 20_000,
        pollSeconds: 2,
        ...options,
      }),
      resolverTimeoutMs: 60_000,
    });
    const session = engine.session();
    const call = { id: 'call-1', name: 'wire_transfer', args: { to: 'ACME', amount: 25_000 } };
    await session.start({ tools_registered: ['wire_transfer'] });
    await session.input('pay ACME', 'user');
    await session.callModel(
      { model: { id: 'scripted' }, messages: [{ role: 'user', content: 'pay ACME' }] },
      () => ({ content: null, tool_calls: [call], finish_reason: 'tool_calls' }),
    );
    const outcome = await session.callTool(call, (args) => {
      received.push(args.amount as number);
      return 'sent';
    });
    return { outcome, received };
  }

  async function approveWhenAsked(): Promise<void> {
    const prisma = await testDb();
    for (let i = 0; i < 400; i++) {
      const t = await prisma.approvalTicket.findFirst({
        where: { status: 'pending' },
        select: { id: true, contextIdentity: true },
      });
      if (t) {
        await decideTicket({
          ticketId: t.id,
          actor: { kind: 'human', userId: reviewer.id, auth: 'password' },
          outcome: 'approve',
          contextIdentity: t.contextIdentity,
        });
        return;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('no ticket arrived');
  }

  async function run(options: Partial<HttpApprovalResolverOptions>) {
    const [result] = await Promise.all([transfer(options), approveWhenAsked()]);
    return result;
  }

  const UNRESOLVED = { status: 'blocked', reason: 'host_error:approval_unresolved' };

  it('a good receipt verifies (default `verify`) and the approval goes through', async () => {
    const seen: { kid: string; claims: object }[] = [];
    const { outcome, received } = await run({
      fetch: appFetch(),
      onReceipt: (r) => seen.push(r),
    });
    expect(outcome.status).toBe('completed');
    expect(received).toEqual([25_000]);
    expect(seen).toHaveLength(1);
    expect(seen[0].claims).toMatchObject({ outcome: 'approve', decider: { auth: 'password' } });
    // The evidence's JWKS pointer names APP_URL's origin, not this base URL: never fetched.
    expect(fetched.filter((u) => u.endsWith('/.well-known/jwks.json'))).toEqual([
      `${baseUrl}/.well-known/jwks.json`,
    ]);
  });

  it('`require` with no receipt → unresolved; `verify` with none accepts', async () => {
    const strip: Rewrite = ({ receipt: _r, ...rest }) => rest;
    const required = await run({ receipts: 'require', fetch: appFetch(strip) });
    expect(required.outcome).toMatchObject(UNRESOLVED);
    expect(required.received).toEqual([]);
    await truncateAll();
    host = await hostWithKey('remote');
    reviewer = await userWith('rita@example.com', ['reviewer']);
    const lenient = await run({ receipts: 'verify', fetch: appFetch(strip) });
    expect(lenient.outcome.status).toBe('completed');
  });

  it('a receipt with a bad signature, or signed by a key the app never published → unresolved', async () => {
    const flip: Rewrite = (a) => {
      const [h, p, s] = String(a.receipt).split('.');
      const sig = Buffer.from(s, 'base64url');
      sig[0] ^= 1;
      return { ...a, receipt: `${h}.${p}.${sig.toString('base64url')}` };
    };
    for (const receipts of ['verify', 'require'] as const) {
      const { outcome, received } = await run({ receipts, fetch: appFetch(flip) });
      expect(outcome).toMatchObject(UNRESOLVED);
      expect(received).toEqual([]);
    }
    // The right kid, another key: a JWKS that is not the app's.
    const fakeJwks = async () => {
      const real = (await (
        await jwksRoute(new NextRequest(`${baseUrl}/x`), { params: Promise.resolve({}) })
      ).json()) as {
        keys: { kid: string }[];
      };
      const { x } = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
      return Response.json({ keys: real.keys.map((k) => ({ ...k, x })) });
    };
    const wrongKey = await run({ fetch: appFetch(undefined, fakeJwks) });
    expect(wrongKey.outcome).toMatchObject(UNRESOLVED);
  });

  it('a valid receipt for another answer (claims do not match the resolution) → unresolved', async () => {
    // A proxy that turns a rejection into an approval keeps the real receipt, which says reject.
    const prisma = await testDb();
    const flipOutcome: Rewrite = (a) => ({
      ...a,
      outcome: 'approve',
      verdict: { decision: 'allow' },
    });
    const running = transfer({ fetch: appFetch(flipOutcome) });
    for (let i = 0; i < 400; i++) {
      const t = await prisma.approvalTicket.findFirst({ where: { status: 'pending' } });
      if (t) {
        await decideTicket({
          ticketId: t.id,
          actor: { kind: 'human', userId: reviewer.id, auth: 'password' },
          outcome: 'reject',
          reason: 'no',
          contextIdentity: t.contextIdentity,
        });
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    const { outcome, received } = await running;
    expect(outcome).toMatchObject(UNRESOLVED);
    expect(received).toEqual([]);
  });

  it('`off` does not look at receipts', async () => {
    const garbage: Rewrite = (a) => ({ ...a, receipt: 'not.a.receipt' });
    const { outcome } = await run({ receipts: 'off', fetch: appFetch(garbage) });
    expect(outcome.status).toBe('completed');
    expect(fetched.some((u) => u.endsWith('/.well-known/jwks.json'))).toBe(false);
  });
});
