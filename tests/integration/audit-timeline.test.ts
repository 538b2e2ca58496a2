import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRecordDetail } from '@/lib/server/audit/record-detail';
import { getSessionTimeline, type SessionTimeline } from '@/lib/server/audit/timeline';
import type { SessionIntegrity } from '@/lib/server/audit/integrity';
import { ingestRecords } from '@/lib/server/records/ingest';
import { insertRows, seedHostRow, seedUser } from './audit-seed';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

type Actor = { id: string; roles: ('admin' | 'reviewer' | 'auditor')[] };

/** A §10.3 record that passes spec/schema. */
function rec(sessionId: string, sequence: number, over: Record<string, unknown> = {}) {
  return {
    interception_point: 'pre_tool_call',
    mode: 'enforce',
    verdict: { decision: 'allow' },
    input_identity: `sha256:${String(sequence).padStart(64, 'a')}`,
    enforced_identity: `sha256:${String(sequence).padStart(64, 'a')}`,
    identity_provider: 'jcs-sha256',
    session_id: sessionId,
    sequence,
    timestamp: `2026-12-02T10:00:0${sequence}.000Z`,
    decided_by: null,
    composition: { profile: 'sequential/run_all' },
    verdicts: [{ index: 0, decision: 'allow', name: 'guard' }],
    interceptors_registered: 1,
    ...over,
  };
}

function timeline(t: SessionTimeline) {
  if (t.kind !== 'timeline') throw new Error(`expected a timeline, got ${t.kind}`);
  return t;
}

describe('session timeline (§10.3: records are totally ordered within a session)', () => {
  let auditor: Actor;
  let reviewerUser: { id: string; email: string };
  let host: string;
  let ticketId: string;

  beforeAll(async () => {
    await truncateAll();
    auditor = (await seedUser('aud@example.com', ['auditor'])) as Actor;
    const prisma = await testDb();
    reviewerUser = await prisma.user.create({
      data: { email: 'rita@example.com', name: 'Rita Reviewer', roles: ['reviewer'] },
      select: { id: true, email: true },
    });
    host = await seedHostRow('agent-host');
    // Sequences 3 and 4 never arrive; 1 was a liftable deny a reviewer approved.
    await ingestRecords(host, [
      rec('s-1', 0, { interception_point: 'agent_startup' }),
      rec('s-1', 1, {
        verdict: {
          decision: 'allow',
          warnings: [{ reason: 'slow', message: 'resolver took 3 s' }],
        },
        decided_by: 0,
        verdicts: [{ index: 0, decision: 'deny', reason: 'needs_review', name: 'guard' }],
        resolved_by: 'approval',
      }),
      rec('s-1', 2, {
        verdict: { decision: 'deny', reason: 'host_error:interceptor_timeout' },
        decided_by: 0,
        verdicts: [
          { index: 0, decision: 'deny', reason: 'host_error:interceptor_timeout', name: 'guard' },
        ],
      }),
      rec('s-1', 5),
      rec('s-1', 6, { interception_point: 'agent_shutdown' }),
    ]);
    const ticket = await prisma.approvalTicket.create({
      data: {
        hostId: host,
        interceptionPoint: 'pre_tool_call',
        verdict: { decision: 'deny', reason: 'needs_review', approval: {} },
        context: {},
        sessionId: 's-1',
        sequence: 1,
        agentId: 'agent-1',
        status: 'approved',
        expiresAt: new Date(Date.now() + 3600_000),
        decidedAt: new Date(),
      },
      select: { id: true },
    });
    ticketId = ticket.id;
    await prisma.decision.create({
      data: { ticketId, outcome: 'approve', decidedByKind: 'human', userId: reviewerUser.id },
    });
  });
  afterAll(closeTestDb);

  it('orders entries by sequence and flags the gap inline where it belongs', async () => {
    const t = timeline(await getSessionTimeline(auditor, { sessionId: 's-1' }));
    expect(t.host).toMatchObject({ id: host, name: 'agent-host', records: 5 });
    expect(t.entries.map((e) => e.sequence)).toEqual([0, 1, 2, 5, 6]);
    expect(t.entries.map((e) => e.gapBefore)).toEqual([null, null, null, { from: 3, to: 4 }, null]);
    expect(t.nextAfter).toBeNull();
  });

  it('shows the verdict summary, warnings, decided_by, identities and host errors', async () => {
    const t = timeline(await getSessionTimeline(auditor, { sessionId: 's-1' }));
    const [, approved, failed] = t.entries;
    expect(approved).toMatchObject({
      decidedBy: 0,
      warnings: [{ reason: 'slow', message: 'resolver took 3 s' }],
      verdicts: [{ index: 0, decision: 'deny', reason: 'needs_review', name: 'guard' }],
      inputIdentity: `sha256:${'1'.padStart(64, 'a')}`,
      identityProvider: 'jcs-sha256',
      hostError: false,
    });
    expect(failed).toMatchObject({ hostError: true, reason: 'host_error:interceptor_timeout' });
  });

  it('links resolved_by to the approval ticket and its reviewer', async () => {
    const t = timeline(await getSessionTimeline(auditor, { sessionId: 's-1' }));
    expect(t.entries[1]?.ticket).toMatchObject({
      id: ticketId,
      status: 'approved',
      decidedByKind: 'human',
      reviewer: { name: 'Rita Reviewer', email: 'rita@example.com' },
    });
    expect(t.entries.filter((e) => e.ticket).map((e) => e.sequence)).toEqual([1]);
  });

  it('reports the chain check: intact links, with the gap', async () => {
    const t = timeline(await getSessionTimeline(auditor, { sessionId: 's-1' }));
    expect(t.chain).toEqual({
      ok: false,
      checked: 5,
      firstBrokenSequence: null,
      gaps: [{ after: 2, before: 5 }],
    });
  });

  it('pages by sequence, keeping gap detection across the page boundary', async () => {
    const first = timeline(await getSessionTimeline(auditor, { sessionId: 's-1', limit: 3 }));
    expect(first.entries.map((e) => e.sequence)).toEqual([0, 1, 2]);
    expect(first.nextAfter).toBe(2);
    const second = timeline(
      await getSessionTimeline(auditor, { sessionId: 's-1', after: 2, limit: 3 }),
    );
    expect(second.entries.map((e) => e.sequence)).toEqual([5, 6]);
    expect(second.entries[0]?.gapBefore).toEqual({ from: 3, to: 4 });
    expect(second.nextAfter).toBeNull();
  });

  it('asks which host when the same session id exists under two hosts', async () => {
    const other = await seedHostRow('other-host');
    await ingestRecords(other, [rec('s-1', 0)]);
    const t = await getSessionTimeline(auditor, { sessionId: 's-1' });
    expect(t).toEqual({
      kind: 'choose_host',
      sessionId: 's-1',
      hosts: [
        { id: host, name: 'agent-host', records: 5 },
        { id: other, name: 'other-host', records: 1 },
      ],
    });
    const mine = timeline(await getSessionTimeline(auditor, { sessionId: 's-1', hostId: other }));
    expect(mine.entries.map((e) => e.sequence)).toEqual([0]);
    expect(mine.chain).toMatchObject({ ok: true, checked: 1 });
    expect(await getSessionTimeline(auditor, { sessionId: 'no-such-session' })).toEqual({
      kind: 'not_found',
    });
  });

  it('shows a broken chain when a stored record was edited', async () => {
    const prisma = await testDb();
    const edited = await seedHostRow('edited-host');
    await ingestRecords(
      edited,
      [0, 1, 2].map((i) => rec('s-e', i)),
    );
    await prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" SET record = jsonb_set(record, '{verdict,decision}', '"deny"')
       WHERE "hostId" = $1::uuid AND "sessionId" = 's-e' AND sequence = 1`,
      edited,
    );
    const t = timeline(await getSessionTimeline(auditor, { sessionId: 's-e', hostId: edited }));
    expect(t.chain).toMatchObject({ ok: false, firstBrokenSequence: 1 });
    // The same walk checks the copied columns: the page says which record and how.
    const integrity = t.integrity as SessionIntegrity;
    expect(integrity.ok).toBe(false);
    expect(integrity.findings.filter((f) => f.problem === 'altered')).toEqual([
      expect.objectContaining({
        sequence: 1,
        detail: expect.stringContaining('the decision column says allow, the record says deny'),
      }),
    ]);
  });

  it("lists the host's own failures received while the session ran, apart from the timeline", async () => {
    const failure = (message: string) =>
      rec('', -1, {
        interception_point: 'agent_startup',
        verdict: { decision: 'deny', reason: 'host_error:context_invalid', message },
        input_identity: null,
        enforced_identity: null,
      });
    await ingestRecords(host, [failure('during the session')]);
    const elsewhere = await seedHostRow('elsewhere');
    await ingestRecords(elsewhere, [failure('another host')]);
    await insertRows(host, [
      {
        hostFailure: true,
        decision: 'deny',
        reason: 'host_error:adapter_unsupported',
        receivedAt: new Date(Date.now() - 2 * 3600_000),
      },
    ]);
    const t = timeline(await getSessionTimeline(auditor, { sessionId: 's-1', hostId: host }));
    expect(t.hostFailures).toHaveLength(1);
    expect(t.hostFailures[0]).toMatchObject({
      interceptionPoint: 'agent_startup',
      reason: 'host_error:context_invalid',
    });
    // Never inside the timeline itself: they belong to no session.
    expect(t.entries.every((e) => e.sequence >= 0)).toBe(true);
    // Later pages do not repeat them.
    const later = timeline(
      await getSessionTimeline(auditor, { sessionId: 's-1', hostId: host, after: 2 }),
    );
    expect(later.hostFailures).toEqual([]);
  });

  it('record detail: the stored JSON, identities, chain hashes and the ticket', async () => {
    const prisma = await testDb();
    const row = await prisma.interceptionRecord.findFirstOrThrow({
      where: { hostId: host, sessionId: 's-1', sequence: 1 },
      select: { id: true, chainHash: true },
    });
    const prev = await prisma.interceptionRecord.findFirstOrThrow({
      where: { hostId: host, sessionId: 's-1', sequence: 0 },
      select: { chainHash: true },
    });
    const detail = await getRecordDetail(auditor, row.id.toString());
    expect(detail).toMatchObject({
      id: row.id.toString(),
      sessionId: 's-1',
      sequence: 1,
      chainHash: row.chainHash,
      prevHash: prev.chainHash,
      ticketId,
      enforcedIdentity: `sha256:${'1'.padStart(64, 'a')}`,
      record: { resolved_by: 'approval', session_id: 's-1', sequence: 1 },
    });
    expect(await getRecordDetail(auditor, '999999')).toBeNull();
    expect(await getRecordDetail(auditor, '1 OR 1=1')).toBeNull();
  });
});
