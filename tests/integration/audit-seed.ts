import { createHash } from 'node:crypto';
import type { Role } from '@/lib/generated/prisma/enums';
import { testDb } from './helpers/db';

/**
 * Seeding for the audit browser's tests: rows written straight into the
 * store with chosen `receivedAt` (ties included), which the ingest API
 * cannot do. Chain and ingest behaviour are the records tests' business;
 * timeline tests that need a real chain go through ingestRecords().
 */

export type SeedRow = {
  sessionId?: string;
  sequence?: number;
  point?: string;
  mode?: string;
  decision?: string;
  reason?: string | null;
  resolvedBy?: string | null;
  foldTruncated?: boolean | null;
  agentId?: string | null;
  receivedAt: Date;
  hostFailure?: boolean;
};

export async function seedUser(email: string, roles: Role[]) {
  const prisma = await testDb();
  return prisma.user.create({ data: { email, roles }, select: { id: true, roles: true } });
}

export async function seedHostRow(name: string): Promise<string> {
  const prisma = await testDb();
  return (await prisma.host.create({ data: { name }, select: { id: true } })).id;
}

let counter = 0;

/** Inserts rows in the order given (so ids ascend in that order); returns their ids. */
export async function insertRows(hostId: string, rows: SeedRow[]): Promise<string[]> {
  const prisma = await testDb();
  const ids: string[] = [];
  for (const r of rows) {
    counter++;
    const sessionId = r.hostFailure ? '' : (r.sessionId ?? `s-${counter}`);
    const sequence = r.hostFailure ? -1 : (r.sequence ?? 0);
    const reason = r.reason ?? null;
    const record = {
      interception_point: r.point ?? 'pre_tool_call',
      mode: r.mode ?? 'enforce',
      verdict: { decision: r.decision ?? 'allow', ...(reason ? { reason } : {}) },
      input_identity: null,
      enforced_identity: null,
      identity_provider: null,
      session_id: sessionId,
      sequence,
      decided_by: null,
      composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
      interceptors_registered: 1,
      ...(r.resolvedBy ? { resolved_by: r.resolvedBy } : {}),
      ...(r.foldTruncated !== undefined && r.foldTruncated !== null
        ? { fold_truncated: r.foldTruncated }
        : {}),
    };
    const hash = createHash('sha256').update(`${counter}`).digest('hex');
    const row = await prisma.interceptionRecord.create({
      data: {
        hostId,
        sessionId,
        sequence,
        interceptionPoint: record.interception_point,
        mode: record.mode,
        decision: record.verdict.decision,
        reason,
        resolvedBy: r.resolvedBy ?? null,
        foldTruncated: r.foldTruncated ?? null,
        hostError: reason?.startsWith('host_error:') ?? false,
        hostFailure: r.hostFailure ?? false,
        dedupeKey: r.hostFailure ? hash : '',
        agentId: r.agentId ?? null,
        record,
        chainHash: hash,
        contentHash: hash,
        receivedAt: r.receivedAt,
      },
      select: { id: true },
    });
    ids.push(row.id.toString());
  }
  return ids;
}
