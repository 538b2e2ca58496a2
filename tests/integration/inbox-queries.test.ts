import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Prisma } from '@/lib/generated/prisma/client';
import {
  getInboxTicket,
  INBOX_PAGE_SIZE,
  listInboxTickets,
  parseInboxFilters,
} from '@/lib/server/approvals/inbox';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

const MIN = 60_000;

function ticket(
  hostId: string,
  n: number,
  over: Partial<Prisma.ApprovalTicketCreateManyInput> = {},
): Prisma.ApprovalTicketCreateManyInput {
  const now = Date.now();
  return {
    hostId,
    contextIdentity: `sha256:${String(n).padStart(64, '0')}`,
    identityProvider: 'jcs-sha256',
    interceptionPoint: 'pre_tool_call',
    verdict: { decision: 'deny', reason: 'large_transfer', approval: {} },
    context: { interception_point: 'pre_tool_call', target: { amount: n } },
    sessionId: `sess-${n % 7}`,
    agentId: 'payments-bot',
    toolName: 'wire_transfer',
    agentLabel: `n${n}`,
    reason: 'large_transfer',
    createdAt: new Date(now - n * 1000),
    expiresAt: new Date(now + (n + 1) * MIN),
    ...over,
  };
}

describe('inbox read queries', () => {
  let hostA: string;
  let hostB: string;
  beforeEach(async () => {
    await truncateAll();
    const prisma = await testDb();
    hostA = (await prisma.host.create({ data: { name: 'alpha' } })).id;
    hostB = (await prisma.host.create({ data: { name: 'beta' } })).id;
  });
  afterAll(closeTestDb);

  it('lists pending tickets first by soonest deadline, then decisions most recent first', async () => {
    const prisma = await testDb();
    const now = Date.now();
    await prisma.approvalTicket.createMany({
      data: [
        ticket(hostA, 3),
        ticket(hostA, 1),
        ticket(hostB, 2),
        ticket(hostA, 4, { status: 'approved', decidedAt: new Date(now - 5 * MIN) }),
        ticket(hostA, 5, { status: 'rejected', decidedAt: new Date(now - MIN) }),
        ticket(hostB, 6, {
          status: 'expired',
          decidedAt: null,
          expiresAt: new Date(now - 10 * MIN),
        }),
      ],
    });
    const page = await listInboxTickets({});
    expect(page.rows.map((r) => [r.status, r.agentLabel])).toEqual([
      ['pending', 'n1'],
      ['pending', 'n2'],
      ['pending', 'n3'],
      ['rejected', 'n5'],
      ['approved', 'n4'],
      ['expired', 'n6'],
    ]);
    expect(page.counts).toEqual({ all: 6, pending: 3, approved: 1, rejected: 1, expired: 1 });
    expect(page.rows[1].hostName).toBe('beta');
  });

  it('filters by host, agent, point, reason and session prefix; counts ignore only the status filter', async () => {
    const prisma = await testDb();
    await prisma.approvalTicket.createMany({
      data: [
        ticket(hostA, 1),
        ticket(hostA, 2, { agentId: 'mailer', reason: 'secret_in_email', sessionId: 'abc-1' }),
        ticket(hostB, 3, {
          interceptionPoint: 'output',
          status: 'approved',
          decidedAt: new Date(),
        }),
        ticket(hostB, 4, { sessionId: 'abc-2' }),
      ],
    });
    const ids = async (f: Parameters<typeof listInboxTickets>[0]) =>
      (await listInboxTickets(f)).rows.map((r) => Number(r.agentLabel?.slice(1)));
    expect(await ids({ host: hostB })).toEqual([4, 3]);
    expect(await ids({ agent: 'mailer' })).toEqual([2]);
    expect(await ids({ point: 'output' })).toEqual([3]);
    expect(await ids({ reason: 'secret_in_email' })).toEqual([2]);
    expect(await ids({ session: 'abc' })).toEqual([2, 4]);
    expect(await ids({ host: 'not-a-uuid' })).toEqual([]);
    // Issue 14: what the screen shows matches too — labels (any case), reason prefixes, free text.
    expect(await ids({ agent: 'N2' })).toEqual([2]);
    expect(await ids({ reason: 'secret_' })).toEqual([2]);
    expect(await ids({ q: 'SECRET_in' })).toEqual([2]);
    expect(await ids({ q: 'beta' })).toEqual([4, 3]);
    expect(await ids({ q: 'nothing-like-this' })).toEqual([]);
    const approvedB = await listInboxTickets({ host: hostB, status: 'approved' });
    expect(approvedB.rows).toHaveLength(1);
    expect(approvedB.counts).toMatchObject({ all: 2, pending: 1, approved: 1 });
    expect(approvedB.total).toBe(1);
  });

  it('matches a session by its label, and orders pending tickets as asked (issue 14)', async () => {
    const prisma = await testDb();
    await prisma.approvalTicket.createMany({
      data: [ticket(hostA, 1, { sessionLabel: 'Invoice run' }), ticket(hostA, 2), ticket(hostA, 3)],
    });
    const ids = async (f: Parameters<typeof listInboxTickets>[0]) =>
      (await listInboxTickets(f)).rows.map((r) => Number(r.agentLabel?.slice(1)));
    expect(await ids({ session: 'invoice RUN' })).toEqual([1]);
    // createdAt: n seconds ago; deadline: n+1 minutes ahead.
    expect(await ids({})).toEqual([1, 2, 3]);
    expect(await ids({ sort: 'newest' })).toEqual([1, 2, 3]);
    expect(await ids({ sort: 'oldest' })).toEqual([3, 2, 1]);
    expect(parseInboxFilters({ sort: 'sideways' }).sort).toBeUndefined();
    expect(parseInboxFilters({ sort: 'oldest', q: '  x ' })).toMatchObject({
      sort: 'oldest',
      q: 'x',
    });
  });

  it('parses URL filters strictly: unknown statuses and points are dropped, pages start at 1', () => {
    expect(
      parseInboxFilters({ status: 'approved', point: 'pre_tool_call', page: '3', session: ' s1 ' }),
    ).toMatchObject({ status: 'approved', point: 'pre_tool_call', page: 3, session: 's1' });
    expect(parseInboxFilters({ status: 'everything', point: 'tool', page: '-2' })).toMatchObject({
      status: undefined,
      point: undefined,
      page: 1,
    });
  });

  it('pages across the pending/decided boundary without losing or repeating a ticket', async () => {
    const prisma = await testDb();
    const data = [];
    for (let n = 0; n < 60; n++) data.push(ticket(hostA, n));
    for (let n = 60; n < 80; n++) {
      data.push(
        ticket(hostA, n, { status: 'approved', decidedAt: new Date(Date.now() - n * 1000) }),
      );
    }
    await prisma.approvalTicket.createMany({ data });
    const p1 = await listInboxTickets({ page: 1 });
    const p2 = await listInboxTickets({ page: 2 });
    expect(p1.pageCount).toBe(2);
    expect(p1.rows).toHaveLength(INBOX_PAGE_SIZE);
    expect(p2.rows.map((r) => r.status).slice(0, 10)).toEqual(new Array(10).fill('pending'));
    expect(p2.rows[10].status).toBe('approved');
    const seen = new Set([...p1.rows, ...p2.rows].map((r) => r.id));
    expect(seen.size).toBe(80);
    // A page past the end shows the last one rather than nothing.
    expect((await listInboxTickets({ page: 9 })).page).toBe(2);
  });

  // How fast is a benchmark's question (bench/), not a timed assertion: this
  // checks the pages and counts at 10,000 pending tickets.
  it('reads any queue page from 10,000 pending tickets, with the counts', async () => {
    const prisma = await testDb();
    for (let chunk = 0; chunk < 10; chunk++) {
      const data = [];
      for (let n = chunk * 1000; n < (chunk + 1) * 1000; n++) data.push(ticket(hostA, n));
      await prisma.approvalTicket.createMany({ data });
    }
    await prisma.$executeRawUnsafe('ANALYZE "ApprovalTicket"');
    for (const page of [1, 100, 200]) {
      const res = await listInboxTickets({ page });
      expect(res.rows).toHaveLength(INBOX_PAGE_SIZE);
      expect(res.counts.pending).toBe(10_000);
      expect(res.page).toBe(page);
    }
  });

  it('loads one ticket with its redacted paths in both places and the fold summary of its record', async () => {
    const prisma = await testDb();
    const t = await prisma.approvalTicket.create({
      data: {
        ...ticket(hostA, 1, {
          // §5.2 (path-grammar.abnf): bracket members hold member-name characters only.
          redactedPaths: ['$target.password', '$target["api-key"]'],
          sequence: 4,
        }),
        context: {
          interception_point: 'pre_tool_call',
          tool_call: { id: 'c1', name: 'login', args: { password: '[redacted]' } },
          target: { password: '[redacted]' },
        },
      },
    });
    const pending = await getInboxTicket(t.id);
    expect(pending?.redactedContextPaths).toEqual([
      'target.password',
      'tool_call.args.password',
      'target.api-key',
      'tool_call.args.api-key',
    ]);
    expect(pending?.fold).toBeNull();

    await prisma.interceptionRecord.create({
      data: {
        hostId: hostA,
        sessionId: t.sessionId,
        sequence: 4,
        interceptionPoint: 'pre_tool_call',
        mode: 'enforce',
        decision: 'deny',
        record: {
          composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
          verdicts: [{ index: 0, decision: 'deny', reason: 'large_transfer', name: 'limits' }],
          fold_truncated: true,
          interceptors_registered: 3,
        },
        chainHash: 'x',
        contentHash: 'x',
      },
    });
    const withRecord = await getInboxTicket(t.id);
    expect(withRecord?.fold).toEqual({
      source: 'record',
      verdicts: [{ index: 0, decision: 'deny', reason: 'large_transfer', name: 'limits' }],
      foldTruncated: true,
      interceptorsRegistered: 3,
      profile: 'sequential/first_deny',
      // The record carries no decided_by here, so nothing is marked as consulted.
      consulted: null,
      skipped: 2,
    });
    expect(await getInboxTicket('not-a-uuid')).toBeNull();
    expect(await getInboxTicket('00000000-0000-4000-8000-000000000000')).toBeNull();
  });
});
