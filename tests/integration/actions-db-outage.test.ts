import { createServer } from 'node:net';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { decideAction } from '@/app/approvals/[id]/actions';
import { idle } from '@/app/components/form-state';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { findActiveSession } from '@/lib/server/auth/user-sessions';
import { closeDb } from '@/lib/server/db';
import { openDatabase, type PgLimits } from '@/lib/server/db/open';
import { withOutageState } from '@/lib/server/http/action-state';
import {
  approvalRequest,
  hostWithKey,
  post,
  transferContext,
  userWith,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

/**
 * Issue 17 follow-up: during a database outage a form's server action threw
 * and the reviewer saw Next's error page. It now answers the form's error
 * state, code `database_unavailable`, and nothing changes.
 *
 * Auth.js reads the session cookie from a request, which a test has none
 * of: getCurrentUser is replaced by the part after the cookie, the real
 * session lookup in the database, so an outage hits it as it would.
 */
const session = vi.hoisted(() => ({
  current: null as { sessionId: string; userId: string } | null,
  /** What getCurrentUser read, handed to getActiveSession as React's per-request cache would. */
  active: null as unknown,
}));
vi.mock('@/lib/server/auth/session', () => ({
  getCurrentUser: async () => {
    session.active = null;
    if (!session.current) return null;
    const active = await findActiveSession(session.current.sessionId, session.current.userId);
    session.active = active;
    return active ? { ...active.user, sessionId: active.sessionId } : null;
  },
  getActiveSession: async () => session.active,
}));

const LIMITS: PgLimits = {
  statementTimeoutMs: 1_500,
  lockTimeoutMs: 400,
  connectTimeoutMs: 800,
  poolMax: 2,
};
const WORDS = 'The database is unavailable right now; nothing was changed — try again in a moment.';

/** A port nothing listens on: bound once by us, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs `fn` with the process's client swapped for one on a closed port, as if the server went away. */
async function whileDatabaseGone<T>(fn: () => Promise<T>): Promise<T> {
  const port = await closedPort();
  const slot = globalThis as typeof globalThis & { __checkpointDb?: unknown };
  await closeDb();
  slot.__checkpointDb = openDatabase({
    kind: 'postgres',
    url: `postgresql://postgres@127.0.0.1:${port}/gone`,
    limits: LIMITS,
  });
  try {
    return await fn();
  } finally {
    // The next db() opens the real database again from the configuration.
    await closeDb();
  }
}

function decisionForm(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return form;
}

describe('server actions during a database outage answer the form, not the error page', () => {
  let ticket: { id: string; identity: string };
  let reviewerId: string;

  beforeEach(async () => {
    await truncateAll();
    session.current = null;
    const host = await hostWithKey('outage');
    const body = approvalRequest(transferContext());
    const res = await post(host.key, body);
    ticket = { id: res.body.id, identity: body.context_identity as string };
    reviewerId = (await userWith('rita@example.com', ['reviewer'])).id;
    const row = await (await testDb()).userSession.create({
      data: {
        userId: reviewerId,
        method: 'password',
        expiresAt: new Date(Date.now() + 3_600_000),
      },
      select: { id: true },
    });
    session.current = { sessionId: row.id, userId: reviewerId };
  });
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  const unchanged = async () => {
    const prisma = await testDb();
    const t = await prisma.approvalTicket.findUniqueOrThrow({ where: { id: ticket.id } });
    return {
      status: t.status,
      decisions: await prisma.decision.count(),
      decidedAudit: await prisma.auditEvent.count({ where: { action: 'approval.decided' } }),
    };
  };

  it.each([
    ['approve', {}],
    ['reject', { reason: 'Vendor not approved' }],
    ['edit', { editPath: '$.target.arguments.amount', editValue: '10' }],
  ])('%s: the session check fails on the outage and the form says so', async (outcome, extra) => {
    const form = decisionForm({
      ticketId: ticket.id,
      outcome,
      contextIdentity: ticket.identity,
      ...extra,
    });
    const state = await whileDatabaseGone(() => decideAction(idle, form));
    expect(state).toEqual({ status: 'error', code: 'database_unavailable', message: WORDS });
    expect(await unchanged()).toEqual({ status: 'pending', decisions: 0, decidedAudit: 0 });
  });

  it('the decision itself fails on the outage (session already read): same answer, nothing decided', async () => {
    // The session lookup answers from before the outage; decideTicket meets it.
    const active = await findActiveSession(session.current!.sessionId, reviewerId);
    session.current = null;
    const mocked = await import('@/lib/server/auth/session');
    const spy = vi
      .spyOn(mocked, 'getCurrentUser')
      .mockResolvedValueOnce({ ...active!.user, sessionId: active!.sessionId });
    try {
      const form = decisionForm({
        ticketId: ticket.id,
        outcome: 'approve',
        contextIdentity: ticket.identity,
      });
      const state = await whileDatabaseGone(() => decideAction(idle, form));
      expect(spy).toHaveBeenCalledOnce();
      expect(state).toMatchObject({
        status: 'error',
        code: 'database_unavailable',
        message: WORDS,
      });
    } finally {
      spy.mockRestore();
    }
    expect(await unchanged()).toEqual({ status: 'pending', decisions: 0, decidedAudit: 0 });
  });

  it('with the database up, a refusal the service makes itself reads as before', async () => {
    const form = decisionForm({
      ticketId: ticket.id,
      outcome: 'approve',
      contextIdentity: 'sha256:not-what-was-shown',
    });
    // A refusal the service makes itself still reads as before.
    expect(await decideAction(idle, form)).toMatchObject({
      status: 'error',
      code: 'identity_stale',
    });
    expect(await unchanged()).toEqual({ status: 'pending', decisions: 0, decidedAudit: 0 });
  });

  it('withOutageState passes everything but a database outage through unchanged', async () => {
    const bug = new Error('a real bug');
    await expect(
      withOutageState(async () => {
        throw bug;
      })(idle, new FormData()),
    ).rejects.toBe(bug);
    // Next's redirect is an error with a digest: it must reach Next.
    const redirect = Object.assign(new Error('NEXT_REDIRECT'), {
      digest: 'NEXT_REDIRECT;push;/x;307;',
    });
    await expect(
      withOutageState(async () => {
        throw redirect;
      })(idle, new FormData()),
    ).rejects.toBe(redirect);
    // A statement cancelled by statement_timeout (SQLSTATE 57014) is the timeout kind.
    const timeout = Object.assign(new Error('canceling statement'), { code: '57014' });
    expect(
      await withOutageState(async () => {
        throw timeout;
      })(idle, new FormData()),
    ).toMatchObject({ status: 'error', code: 'database_timeout' });
  });
});
