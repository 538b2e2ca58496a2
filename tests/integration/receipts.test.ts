import { createHash, generateKeyPairSync } from 'node:crypto';
import { CompactSign, importJWK } from 'jose';
import { NextRequest } from 'next/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  canonicalJson,
  DEFAULTS,
  utf8Length,
  validateResolution,
  validateVerdict,
} from '@checkpoint/agent-hooks';
import { GET as receiptRoute } from '@/app/api/v1/approvals/[id]/receipt/route';
import { decideTicket } from '@/lib/server/approvals/decide';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { expireTickets } from '@/lib/server/approvals/expire';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { createCallbackDelivery } from '@/lib/server/webhooks/deliveries';
import { deploymentOrigin, receiptForTicket, verifyReceipt } from '@/lib/server/receipts';
import { forgetActiveSigningKey, publicJwks } from '@/lib/server/signing/jws';
import { rotateSigningKey } from '@/lib/server/signing/keys';
import {
  approvalRequest,
  type Body,
  hostWithKey,
  poll,
  post,
  transferContext,
  userWith,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';

/**
 * Issue 13 item 2 on a real PostgreSQL: every way a ticket is settled (web,
 * Slack, resolver, expiry) leaves a signed receipt that verifies against the
 * published keys, says exactly who decided what, and is pointed at by the
 * released verdict's evidence (§5.3).
 */

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

function claimsOf(jws: string): Body {
  return JSON.parse(Buffer.from(jws.split('.')[1], 'base64url').toString('utf8'));
}
function headerOf(jws: string): Body {
  return JSON.parse(Buffer.from(jws.split('.')[0], 'base64url').toString('utf8'));
}

async function storedReceipt(ticketId: string): Promise<string> {
  const prisma = await testDb();
  const d = await prisma.decision.findUniqueOrThrow({
    where: { ticketId },
    select: { receipt: true },
  });
  expect(d.receipt).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  return d.receipt as string;
}

describe('signed approval receipts', () => {
  let host: { id: string; key: string };
  let reviewer: { id: string };
  let ticket: { id: string; identity: string };

  async function newTicket(
    args: Record<string, unknown> = {},
    extra: Record<string, unknown> = {},
  ) {
    const body = approvalRequest(transferContext({ iban: 'X', ...args }), { extra });
    const res = await post(host.key, body);
    expect(res.status).toBe(201);
    return { id: res.body.id as string, identity: body.context_identity as string };
  }

  beforeAll(async () => {
    const { url, prefix } = testRedis();
    await configureTicketEvents({ redisUrl: url, channel: `${prefix}tickets` });
  });
  beforeEach(async () => {
    await truncateAll();
    forgetActiveSigningKey();
    host = await hostWithKey('billing');
    reviewer = await userWith('rita@example.com', ['reviewer']);
    ticket = await newTicket({}, { request_id: 'req-42' });
  });
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  it('approve with an edit: stored, verifies, claims exact, the value only as its digest', async () => {
    const secret = 'ACME-SECRET-PAYEE-7731';
    const value = { to: secret, note: 'ü', amount: 9000 };
    const decided = await decideTicket({
      ticketId: ticket.id,
      actor: { kind: 'human', userId: reviewer.id, auth: 'sso' },
      outcome: 'approve',
      contextIdentity: ticket.identity,
      edit: { path: '$target.to', value },
    });
    const jws = await storedReceipt(ticket.id);
    expect(headerOf(jws)).toMatchObject({ alg: 'EdDSA', typ: 'checkpoint-receipt+jws' });
    const check = await verifyReceipt(jws, { ticketId: ticket.id });
    expect(check.ok).toBe(true);
    const prisma = await testDb();
    const d = await prisma.decision.findUniqueOrThrow({
      where: { ticketId: ticket.id },
      select: { createdAt: true },
    });
    const claims = claimsOf(jws);
    expect(claims).toEqual({
      iss: deploymentOrigin(),
      ticket_id: ticket.id,
      host_id: host.id,
      request_id: 'req-42',
      interception_point: 'pre_tool_call',
      context_identity: ticket.identity,
      outcome: 'approve',
      // RFC 8785 by hand: keys sorted, non-ASCII kept as UTF-8.
      transform: {
        path: '$target.to',
        value_sha256: sha256('{"amount":9000,"note":"ü","to":"ACME-SECRET-PAYEE-7731"}'),
      },
      decider: { kind: 'user', user_id: reviewer.id, email: 'rita@example.com', auth: 'sso' },
      decided_at: d.createdAt.toISOString(),
      iat: expect.any(Number),
    });
    expect(Buffer.from(jws.split('.')[1], 'base64url').toString('utf8')).not.toContain(secret);

    // §5.3: the released verdict points at the receipt, within the cap, §9-valid.
    const evidence = (decided.resolution as Body).verdict.evidence;
    expect(evidence).toEqual({
      artefact: `sha256:${createHash('sha256').update(jws).digest('hex')}`,
      verification_pointers: {
        receipt: `${deploymentOrigin()}/api/v1/approvals/${ticket.id}/receipt`,
        jwks: `${deploymentOrigin()}/.well-known/jwks.json`,
      },
    });
    expect(utf8Length(canonicalJson(evidence))).toBeLessThanOrEqual(DEFAULTS.evidenceMaxBytes);
    expect(validateVerdict(decided.resolution.verdict).ok).toBe(true);
    expect(validateResolution(decided.resolution, ticket.identity)).toMatchObject({ ok: true });

    // The host's long-poll gets the same resolution and the receipt next to it.
    const answer = await poll(host.key, ticket.id, 1);
    expect(answer.body).toEqual({ ...decided.resolution, receipt: jws });
    expect(validateResolution(answer.body, ticket.identity)).toMatchObject({ ok: true });
  });

  it('reject: outcome reject, no transform; a caller that gave no sign-in method is "unrecorded"', async () => {
    await decideTicket({
      ticketId: ticket.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'reject',
      reason: 'not this payee',
      contextIdentity: ticket.identity,
    });
    const jws = await storedReceipt(ticket.id);
    expect((await verifyReceipt(jws, { ticketId: ticket.id })).ok).toBe(true);
    const claims = claimsOf(jws);
    expect(claims.outcome).toBe('reject');
    expect(claims).not.toHaveProperty('transform');
    expect(claims.decider).toEqual({
      kind: 'user',
      user_id: reviewer.id,
      email: 'rita@example.com',
      auth: 'unrecorded',
    });
  });

  it('Slack and resolver decisions say so', async () => {
    await decideTicket({
      ticketId: ticket.id,
      actor: { kind: 'slack', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: ticket.identity,
    });
    expect(claimsOf(await storedReceipt(ticket.id)).decider).toEqual({
      kind: 'slack',
      user_id: reviewer.id,
      email: 'rita@example.com',
      auth: 'slack_linked',
    });
    const other = await newTicket({ iban: 'Y' });
    await decideTicket({
      ticketId: other.id,
      actor: { kind: 'resolver' },
      outcome: 'reject',
      reasonCode: 'payee_blocked',
      reason: 'blocked payee',
      contextIdentity: other.identity,
    });
    const claims = claimsOf(await storedReceipt(other.id));
    expect(claims.decider).toEqual({
      kind: 'resolver',
      user_id: null,
      email: null,
      auth: 'resolver_webhook',
    });
    expect(claims.request_id).toBeNull();
  });

  it('bulk expiry: every expired ticket gets a verifying `unresolved` receipt', async () => {
    const more = [await newTicket({ iban: 'A' }), await newTicket({ iban: 'B' })];
    const at = new Date(Date.now() + 60 * 60 * 1000);
    const expired = await expireTickets({ now: at });
    expect(expired.map((t) => t.id).sort()).toEqual([ticket.id, ...more.map((t) => t.id)].sort());
    const jwks = await publicJwks();
    for (const t of [ticket, ...more]) {
      const jws = await storedReceipt(t.id);
      const check = await verifyReceipt(jws, { ticketId: t.id, jwks });
      expect(check.ok).toBe(true);
      expect(claimsOf(jws)).toMatchObject({
        outcome: 'unresolved',
        context_identity: t.identity,
        decided_at: at.toISOString(),
        decider: { kind: 'system', user_id: null, email: null, auth: 'expiry' },
      });
    }
  });

  it('a missing receipt is issued on first read, stored once, and says the same', async () => {
    await decideTicket({
      ticketId: ticket.id,
      actor: { kind: 'human', userId: reviewer.id, auth: 'password' },
      outcome: 'approve',
      contextIdentity: ticket.identity,
      edit: { path: '$target.amount', value: 100 },
    });
    const first = await storedReceipt(ticket.id);
    const prisma = await testDb();
    await prisma.decision.update({ where: { ticketId: ticket.id }, data: { receipt: null } });
    // Two readers at once: one receipt stored, both answer it.
    const [a, b] = await Promise.all([receiptForTicket(ticket.id), receiptForTicket(ticket.id)]);
    const stored = await storedReceipt(ticket.id);
    expect(a).toBe(stored);
    expect(b).toBe(stored);
    const { iat: _i1, ...was } = claimsOf(first);
    const { iat: _i2, ...now } = claimsOf(stored);
    expect(now).toEqual(was);
    expect((await verifyReceipt(stored)).ok).toBe(true);
    // The host's long-poll issues it too.
    await prisma.decision.update({ where: { ticketId: ticket.id }, data: { receipt: null } });
    const answer = await poll(host.key, ticket.id, 0);
    expect(answer.body.receipt).toBe(await storedReceipt(ticket.id));
    // Another host gets nothing.
    const other = await hostWithKey('other');
    expect(await receiptForTicket(ticket.id, { hostId: other.id })).toBeNull();
  });

  it('the callback payload carries the receipt', async () => {
    const prisma = await testDb();
    await prisma.webhook.create({
      data: {
        hostId: host.id,
        kind: 'callback',
        url: 'https://hooks.example.com/cb',
        enabled: false,
      },
    });
    await decideTicket({
      ticketId: ticket.id,
      actor: { kind: 'resolver' },
      outcome: 'approve',
      contextIdentity: ticket.identity,
    });
    await createCallbackDelivery(ticket.id);
    const row = await prisma.webhookDelivery.findFirstOrThrow({ select: { payload: true } });
    expect((row.payload as Body).data.receipt).toBe(await storedReceipt(ticket.id));
  });

  it('refuses altered claims, a wrong key and an unknown kid; a rotated key still verifies', async () => {
    await decideTicket({
      ticketId: ticket.id,
      actor: { kind: 'human', userId: reviewer.id, auth: 'password' },
      outcome: 'approve',
      contextIdentity: ticket.identity,
    });
    const jws = await storedReceipt(ticket.id);
    const [h, , s] = jws.split('.');
    const altered = {
      ...claimsOf(jws),
      outcome: 'approve',
      decider: { kind: 'user', user_id: null, email: 'mallory@example.com', auth: 'sso' },
    };
    const forgedPayload = Buffer.from(JSON.stringify(altered)).toString('base64url');
    expect(await verifyReceipt(`${h}.${forgedPayload}.${s}`)).toMatchObject({
      ok: false,
      code: 'receipt_signature_invalid',
    });

    // Signed by a key that is not the deployment's, under the deployment's kid.
    const { kid } = headerOf(jws);
    const stranger = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
    const key = await importJWK({ ...stranger, alg: 'EdDSA' }, 'EdDSA');
    const sign = (k: string) =>
      new CompactSign(Buffer.from(JSON.stringify(altered)))
        .setProtectedHeader({ alg: 'EdDSA', kid: k, typ: 'checkpoint-receipt+jws' })
        .sign(key);
    expect(await verifyReceipt(await sign(kid))).toMatchObject({
      code: 'receipt_signature_invalid',
    });
    expect(await verifyReceipt(await sign('not-a-published-kid'))).toMatchObject({
      code: 'receipt_key_unknown',
    });
    expect(await verifyReceipt(jws, { ticketId: crypto.randomUUID() })).toMatchObject({
      code: 'receipt_ticket_mismatch',
    });

    const prisma = await testDb();
    const rotated = await rotateSigningKey(prisma, { kind: 'cli' });
    forgetActiveSigningKey();
    expect(rotated.retired).toEqual([kid]);
    const old = await verifyReceipt(jws, { ticketId: ticket.id });
    expect(old).toMatchObject({ ok: true, kid });
    const next = await newTicket({ iban: 'Z' });
    await decideTicket({
      ticketId: next.id,
      actor: { kind: 'resolver' },
      outcome: 'approve',
      contextIdentity: next.identity,
    });
    const fresh = await storedReceipt(next.id);
    expect(headerOf(fresh).kid).toBe(rotated.kid);
    expect((await verifyReceipt(fresh)).ok).toBe(true);
  });

  it('GET …/receipt: the JWS to the ticket’s host; 404 to another host and while pending', async () => {
    const get = async (key: string, id: string) =>
      receiptRoute(
        new NextRequest(`http://localhost/api/v1/approvals/${id}/receipt`, {
          headers: { authorization: `Bearer ${key}` },
        }),
        { params: Promise.resolve({ id }) },
      );
    expect((await get(host.key, ticket.id)).status).toBe(404);
    await decideTicket({
      ticketId: ticket.id,
      actor: { kind: 'resolver' },
      outcome: 'approve',
      contextIdentity: ticket.identity,
    });
    const res = await get(host.key, ticket.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/jose');
    expect(await res.text()).toBe(await storedReceipt(ticket.id));
    const other = await hostWithKey('other');
    const refused = await get(other.key, ticket.id);
    expect(refused.status).toBe(404);
    expect((await refused.json()).error.code).toBe('not_found');
    const anonymous = await receiptRoute(
      new NextRequest(`http://localhost/api/v1/approvals/${ticket.id}/receipt`),
      { params: Promise.resolve({ id: ticket.id }) },
    );
    expect(anonymous.status).toBe(401);
  });
});
