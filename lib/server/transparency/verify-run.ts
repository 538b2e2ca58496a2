import 'server-only';
import { randomUUID } from 'node:crypto';
import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import type { IntegrityFinding } from '@/lib/verify/findings';
import { type LogVerification, verifyLog } from './verifier';

/**
 * One stored run of the background verifier (the `log.verify` job, or an
 * admin's "Verify now"): never two at once across every process (a lease in
 * AppSetting, taken atomically, which also works on the embedded database
 * where a long transaction would block everything else), the result kept in
 * LogVerification for /status, the admin banner and the metrics.
 */

export const LOG_VERIFY_LEASE_KEY = 'log.verify.lease';
/** A run that died keeps the lease this long at most. */
const LEASE_MS = 2 * 60 * 60 * 1000;
/** Runs older than this are deleted by the next run. */
const KEEP_DAYS = 90;
/** Findings stored per run (the total is stored too). */
export const STORED_FINDINGS = 100;

export type StoredVerification = {
  id: string;
  startedAt: Date;
  finishedAt: Date;
  ok: boolean;
  trigger: string;
  size: number;
  checkedLeaves: number;
  firstFailure: IntegrityFinding | null;
  findings: IntegrityFinding[];
  findingCount: number;
  failureCount: number;
};

async function takeLease(prisma: PrismaClient, owner: string): Promise<boolean> {
  const until = new Date(Date.now() + LEASE_MS).toISOString();
  const rows = await prisma.$queryRawUnsafe<{ key: string }[]>(
    `INSERT INTO "AppSetting" (key, value, "updatedAt") VALUES ($1, $2::jsonb, now())
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, "updatedAt" = now()
       WHERE ("AppSetting".value->>'until')::timestamptz < now()
     RETURNING key`,
    LOG_VERIFY_LEASE_KEY,
    JSON.stringify({ owner, until }),
  );
  return rows.length === 1;
}

async function releaseLease(prisma: PrismaClient, owner: string): Promise<void> {
  await prisma.$executeRawUnsafe(
    `DELETE FROM "AppSetting" WHERE key = $1 AND value->>'owner' = $2`,
    LOG_VERIFY_LEASE_KEY,
    owner,
  );
}

/** Runs and stores a verification; `null` when another run holds the lease. */
export async function runLogVerification(
  prisma: PrismaClient,
  trigger: 'schedule' | 'manual',
  run: (p: PrismaClient) => Promise<LogVerification> = verifyLog,
): Promise<StoredVerification | null> {
  const owner = randomUUID();
  if (!(await takeLease(prisma, owner))) return null;
  try {
    const result = await run(prisma);
    const row = await prisma.logVerification.create({
      data: {
        startedAt: new Date(result.startedAt),
        finishedAt: new Date(result.finishedAt),
        ok: result.ok,
        trigger,
        size: BigInt(result.size),
        checkedLeaves: BigInt(result.checkedLeaves),
        firstFailure: (result.firstFailure ?? undefined) as Prisma.InputJsonValue | undefined,
        findings: result.findings.slice(0, STORED_FINDINGS) as unknown as Prisma.InputJsonValue,
        findingCount: result.totalFindings,
        failureCount: result.failureCount,
      },
    });
    // The history /status reads is recent; a quarter's runs is plenty.
    await prisma.$executeRawUnsafe(
      `DELETE FROM "LogVerification" WHERE "startedAt" < now() - interval '${KEEP_DAYS} days'`,
    );
    return fromRow(row);
  } finally {
    await releaseLease(prisma, owner);
  }
}

function fromRow(row: {
  id: string;
  startedAt: Date;
  finishedAt: Date;
  ok: boolean;
  trigger: string;
  size: bigint;
  checkedLeaves: bigint;
  firstFailure: unknown;
  findings: unknown;
  findingCount: number;
  failureCount: number;
}): StoredVerification {
  return {
    ...row,
    size: Number(row.size),
    checkedLeaves: Number(row.checkedLeaves),
    firstFailure: (row.firstFailure ?? null) as IntegrityFinding | null,
    findings: (Array.isArray(row.findings) ? row.findings : []) as IntegrityFinding[],
  };
}

/** The latest stored run, or null before the first. */
export async function latestLogVerification(
  prisma: PrismaClient,
): Promise<StoredVerification | null> {
  const row = await prisma.logVerification.findFirst({ orderBy: { startedAt: 'desc' } });
  return row ? fromRow(row) : null;
}

/** Whether a run holds the lease now. */
export async function logVerificationRunning(prisma: PrismaClient): Promise<boolean> {
  const rows = await prisma.$queryRawUnsafe<{ running: boolean }[]>(
    `SELECT (value->>'until')::timestamptz > now() AS running FROM "AppSetting" WHERE key = $1`,
    LOG_VERIFY_LEASE_KEY,
  );
  return rows[0]?.running === true;
}
