import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '@/lib/generated/prisma/enums';
import { ticketEventStream } from '@/lib/server/approvals/event-stream';
import { createUserSession, endSession, sessionStillAllows } from '@/lib/server/auth/user-sessions';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

/**
 * The inbox's live feed is a long-lived answer: it must not outlive the
 * session that opened it (issue 11 item 2). Each heartbeat asks the
 * session again; an ended session, a disabled user or a lost role ends it.
 */

const FEED_ROLES: Role[] = ['admin', 'reviewer', 'auditor'];
const BEAT_MS = 40;

/** Reads the stream until it closes or `ms` pass; true when it closed. */
async function closesWithin(res: Response, ms: number): Promise<boolean> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const next = await Promise.race([
      reader.read(),
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), deadline - Date.now())),
    ]);
    if (next === 'timeout') break;
    if (next.done) return true;
  }
  await reader.cancel().catch(() => {});
  return false;
}

describe('live feed: ends with the session behind it', () => {
  let userId: string;
  let sessionId: string;
  beforeEach(async () => {
    await truncateAll();
    const prisma = await testDb();
    userId = (
      await prisma.user.create({
        data: { email: 'feed@example.com', roles: ['reviewer'] },
        select: { id: true },
      })
    ).id;
    sessionId = await createUserSession({ userId, method: 'password' });
  });
  afterAll(closeTestDb);

  const open = () => {
    const abort = new AbortController();
    const res = ticketEventStream(
      abort.signal,
      () => sessionStillAllows(sessionId, userId, FEED_ROLES),
      BEAT_MS,
    );
    return { res, abort };
  };

  it('stays open while the session lives', async () => {
    const { res, abort } = open();
    expect(await closesWithin(res, BEAT_MS * 6)).toBe(false);
    abort.abort();
  });

  it('closes at the next heartbeat once the session is signed out', async () => {
    const { res } = open();
    await endSession(sessionId);
    expect(await closesWithin(res, BEAT_MS * 25)).toBe(true);
  });

  it('closes when the user is disabled or loses every feed role', async () => {
    const prisma = await testDb();
    const first = open();
    await prisma.user.update({ where: { id: userId }, data: { disabled: true } });
    expect(await closesWithin(first.res, BEAT_MS * 25)).toBe(true);

    await prisma.user.update({ where: { id: userId }, data: { disabled: false, roles: [] } });
    const second = open();
    expect(await closesWithin(second.res, BEAT_MS * 25)).toBe(true);
  });

  it('closes when the check itself fails (fail closed)', async () => {
    const abort = new AbortController();
    const res = ticketEventStream(
      abort.signal,
      () => Promise.reject(new Error('db down')),
      BEAT_MS,
    );
    expect(await closesWithin(res, BEAT_MS * 25)).toBe(true);
  });
});
