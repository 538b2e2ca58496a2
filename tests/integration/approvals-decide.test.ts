import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { validateResolution } from '@checkpoint/agent-hooks';
import { DecisionError, decideTicket } from '@/lib/server/approvals/decide';
import {
  configureTicketEvents,
  onTicketEvent,
  type TicketEvent,
} from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import {
  approvalRequest,
  hostWithKey,
  poll,
  post,
  transferContext,
  userWith,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

async function refusal(p: Promise<unknown>): Promise<DecisionError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DecisionError);
  return err as DecisionError;
}

describe('decideTicket (exactly once, identity echo, §9-valid resolutions)', () => {
  let host: { id: string; key: string };
  let reviewer: { id: string };
  let ticket: { id: string; identity: string };

  beforeAll(async () => {
    const { url, prefix } = testRedis();
    await configureTicketEvents({ redisUrl: url, channel: `${prefix}tickets` });
  });
  beforeEach(async () => {
    await truncateAll();
    host = await hostWithKey('billing', { redactionPaths: ['$target.iban'] });
    reviewer = await userWith('rita@example.com', ['reviewer']);
    const body = approvalRequest(transferContext({ iban: 'X' }), { redact: ['$target.iban'] });
    const res = await post(host.key, body);
    ticket = { id: res.body.id, identity: body.context_identity as string };
  });
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  const human = () => ({ kind: 'human' as const, userId: reviewer.id });

  it('approve releases allow echoing the identity; the host’s long-poll gets exactly it', async () => {
    const decided = await decideTicket({
      ticketId: ticket.id,
      actor: human(),
      outcome: 'approve',
      contextIdentity: ticket.identity,
    });
    expect(decided.resolution).toEqual({
      outcome: 'approve',
      context_identity: ticket.identity,
      // Issue 13: the pointer to the decision's signed receipt (§5.3).
      verdict: {
        decision: 'allow',
        evidence: expect.objectContaining({
          artefact: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        }),
      },
    });
    const answer = await poll(host.key, ticket.id, 1);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...decided.resolution, receipt: expect.any(String) });
    expect(validateResolution(answer.body, ticket.identity).ok).toBe(true);
  });

  it('an edit value or a rejection reason holding U+0000 is 422 nul_character, nothing decided', async () => {
    const base = { ticketId: ticket.id, actor: human(), contextIdentity: ticket.identity };
    const edit = await refusal(
      decideTicket({
        ...base,
        outcome: 'approve',
        edit: { path: '$target.amount', value: 'a\u0000b' },
      }),
    );
    expect([edit.code, edit.status]).toEqual(['nul_character', 422]);
    expect(edit.message).toContain('$.verdict.transform.value');
    const reject = await refusal(
      decideTicket({ ...base, outcome: 'reject', reason: 'no\u0000pe' }),
    );
    expect(reject.code).toBe('nul_character');
    const prisma = await testDb();
    expect(
      await prisma.approvalTicket.findUniqueOrThrow({ where: { id: ticket.id } }),
    ).toMatchObject({ status: 'pending' });
  });

  it('approve with edit releases a transform of the target; the edit is validated', async () => {
    const base = {
      ticketId: ticket.id,
      actor: human(),
      outcome: 'approve' as const,
      contextIdentity: ticket.identity,
    };
    expect(
      (await refusal(decideTicket({ ...base, edit: { path: '$target.iban', value: 'Y' } }))).code,
    ).toBe('edit_touches_redacted');
    expect(
      (await refusal(decideTicket({ ...base, edit: { path: '$target', value: {} } }))).code,
    ).toBe('edit_touches_redacted');
    expect(
      (await refusal(decideTicket({ ...base, edit: { path: '$context.x', value: 1 } }))).code,
    ).toBe('edit_path_invalid');
    expect(
      (await refusal(decideTicket({ ...base, edit: { path: '$target.a.b', value: 1 } }))).code,
    ).toBe('edit_path_invalid');
    const huge = await refusal(
      decideTicket({ ...base, edit: { path: '$target.amount', value: 2 ** 60 } }),
    );
    expect([huge.code, huge.status]).toEqual(['edit_value_invalid', 422]);
    const decided = await decideTicket({
      ...base,
      edit: { path: '$target["amount"]', value: 9000 },
    });
    expect(decided.resolution.verdict).toEqual({
      decision: 'transform',
      transform: { path: '$target.amount', value: 9000 },
      evidence: expect.objectContaining({
        artefact: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      }),
    });
  });

  it('reject needs a reason, then releases a deny carrying it', async () => {
    const base = {
      ticketId: ticket.id,
      actor: human(),
      outcome: 'reject' as const,
      contextIdentity: ticket.identity,
    };
    const e = await refusal(decideTicket({ ...base, reason: '  ' }));
    expect([e.code, e.status]).toEqual(['reason_required', 400]);
    const decided = await decideTicket({ ...base, reason: 'Supplier not verified' });
    expect(decided.resolution).toEqual({
      outcome: 'reject',
      context_identity: ticket.identity,
      verdict: {
        decision: 'deny',
        reason: 'approval_rejected',
        message: 'Supplier not verified',
        evidence: expect.objectContaining({
          artefact: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        }),
      },
    });
    const note = await (await testDb()).decision.findUniqueOrThrow({
      where: { ticketId: ticket.id },
    });
    expect(note.note).toBe('Supplier not verified');
  });

  it('a tampered identity is refused 409 and nothing changes', async () => {
    const e = await refusal(
      decideTicket({
        ticketId: ticket.id,
        actor: human(),
        outcome: 'approve',
        contextIdentity: `${ticket.identity}0`,
      }),
    );
    expect([e.code, e.status]).toEqual(['identity_stale', 409]);
    const e2 = await refusal(
      decideTicket({
        ticketId: ticket.id,
        actor: human(),
        outcome: 'approve',
        contextIdentity: null,
      }),
    );
    expect(e2.code).toBe('identity_stale');
    const prisma = await testDb();
    const t = await prisma.approvalTicket.findUniqueOrThrow({ where: { id: ticket.id } });
    expect([t.status, t.decidedAt, t.resolution]).toEqual(['pending', null, null]);
    expect(await prisma.decision.count()).toBe(0);
    expect(await prisma.auditEvent.count({ where: { action: 'approval.decided' } })).toBe(0);
    expect(await prisma.outboxEvent.count({ where: { kind: 'approvals.resolved' } })).toBe(0);
  });

  it('a null identity echoes as null', async () => {
    const res = await post(host.key, approvalRequest(transferContext(), { identity: null }));
    const decided = await decideTicket({
      ticketId: res.body.id,
      actor: human(),
      outcome: 'approve',
      contextIdentity: null,
    });
    expect(decided.resolution.context_identity).toBeNull();
    expect((await poll(host.key, res.body.id)).body).toEqual({
      outcome: 'approve',
      context_identity: null,
      verdict: {
        decision: 'allow',
        evidence: expect.objectContaining({
          artefact: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        }),
      },
      receipt: expect.any(String),
    });
  });

  it('50 concurrent decisions: exactly one wins, the others see who and when', async () => {
    const users = await Promise.all(
      Array.from({ length: 5 }, (_, i) => userWith(`r${i}@example.com`, ['reviewer'])),
    );
    const attempts = Array.from({ length: 50 }, (_, i) =>
      decideTicket({
        ticketId: ticket.id,
        actor: { kind: 'human', userId: users[i % 5].id },
        outcome: i % 2 ? 'approve' : 'reject',
        reason: 'no',
        contextIdentity: ticket.identity,
      }),
    );
    const settled = await Promise.allSettled(attempts);
    const won = settled.filter((s) => s.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const winner = (won[0] as PromiseFulfilledResult<Awaited<(typeof attempts)[0]>>).value;
    const prisma = await testDb();
    const decision = await prisma.decision.findUniqueOrThrow({
      where: { ticketId: ticket.id },
      include: { user: true },
    });
    for (const s of settled) {
      if (s.status === 'fulfilled') continue;
      const e = s.reason as DecisionError;
      expect(e.code).toBe('already_decided');
      expect(e.decidedBy).toEqual({
        kind: 'human',
        userId: decision.userId,
        email: decision.user?.email,
      });
      expect(e.decidedAt?.getTime()).toBe(winner.decidedAt.getTime());
      expect(e.message).toContain(decision.user?.email);
    }
    expect(await prisma.decision.count()).toBe(1);
    expect(await prisma.auditEvent.count({ where: { action: 'approval.decided' } })).toBe(1);
    // One fan-out job (callbacks, Slack) for the one decision.
    expect(await prisma.outboxEvent.count({ where: { kind: 'approvals.resolved' } })).toBe(1);
    // A decided ticket is immutable.
    const t = await prisma.approvalTicket.findUniqueOrThrow({ where: { id: ticket.id } });
    expect(t.resolution).toEqual(winner.resolution);
  });

  it('writes one payload-free audit event: who, when, which identity, which outcome', async () => {
    await decideTicket({
      ticketId: ticket.id,
      actor: human(),
      outcome: 'approve',
      contextIdentity: ticket.identity,
      edit: { path: '$target.amount', value: 12345 },
    });
    const prisma = await testDb();
    const ev = await prisma.auditEvent.findFirstOrThrow({ where: { action: 'approval.decided' } });
    expect(ev).toMatchObject({ actorId: reviewer.id, actorKind: 'user', targetId: ticket.id });
    expect(ev.details).toEqual({
      outcome: 'approve',
      edited: true,
      contextIdentity: ticket.identity,
    });
    expect(JSON.stringify(ev.details)).not.toContain('12345');
  });

  it('roles: auditors, disabled users and unknown users may not decide; resolvers may', async () => {
    const auditor = await userWith('al@example.com', ['auditor']);
    const prisma = await testDb();
    const gone = await userWith('gone@example.com', ['reviewer']);
    await prisma.user.update({ where: { id: gone.id }, data: { disabled: true } });
    const base = {
      ticketId: ticket.id,
      outcome: 'approve' as const,
      contextIdentity: ticket.identity,
    };
    for (const userId of [auditor.id, gone.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
      const e = await refusal(decideTicket({ ...base, actor: { kind: 'human', userId } }));
      expect([e.code, e.status]).toEqual(['forbidden', 403]);
    }
    expect(await prisma.decision.count()).toBe(0);
    const admin = await userWith('ad@example.com', ['admin']);
    await decideTicket({ ...base, actor: { kind: 'human', userId: admin.id } });
  });

  it('unknown tickets are not_found; expired tickets refuse decisions', async () => {
    const e = await refusal(
      decideTicket({
        ticketId: '00000000-0000-4000-8000-000000000000',
        actor: human(),
        outcome: 'approve',
        contextIdentity: null,
      }),
    );
    expect([e.code, e.status]).toEqual(['not_found', 404]);
    const prisma = await testDb();
    await prisma.approvalTicket.update({
      where: { id: ticket.id },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    const late = await refusal(
      decideTicket({
        ticketId: ticket.id,
        actor: human(),
        outcome: 'approve',
        contextIdentity: ticket.identity,
      }),
    );
    expect([late.code, late.status]).toEqual(['expired', 409]);
    const t = await prisma.approvalTicket.findUniqueOrThrow({ where: { id: ticket.id } });
    expect(t.status).toBe('expired');
  });

  it('onTicketEvent hears created and decided from local commits', async () => {
    const seen: TicketEvent[] = [];
    const off = onTicketEvent((e) => seen.push(e));
    const res = await post(host.key, approvalRequest(transferContext()));
    await decideTicket({
      ticketId: res.body.id,
      actor: human(),
      outcome: 'approve',
      contextIdentity: res.body.context_identity,
    });
    off();
    const { expiresAt } = await (await testDb()).approvalTicket.findUniqueOrThrow({
      where: { id: res.body.id },
    });
    expect(seen).toEqual([
      // The deadline rides along, for the expiry schedulers (issue 17 item 7).
      {
        type: 'created',
        ticketId: res.body.id,
        hostId: host.id,
        expiresAt: expiresAt.toISOString(),
      },
      { type: 'decided', ticketId: res.body.id, hostId: host.id },
    ]);
  });
});
