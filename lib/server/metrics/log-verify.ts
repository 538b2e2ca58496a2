import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { checkpointMetrics } from './registry';

/**
 * Scrape-time gauges of the transparency log verifier (issue 13 item 4),
 * from its latest stored run: the worker runs it, the app serves
 * /api/metrics, so an in-memory gauge in the worker would never be seen.
 * Absent before the first run (an alert on `== 0` then stays quiet, one on
 * `absent()` or on the timestamp's age catches a verifier that never runs).
 */
export async function setLogVerifyGauges(prisma: PrismaClient): Promise<void> {
  const m = checkpointMetrics();
  const last = await prisma.logVerification.findFirst({
    orderBy: { startedAt: 'desc' },
    select: { ok: true, finishedAt: true, failureCount: true },
  });
  m.logVerifyOk.reset();
  m.logVerifyLastRun.reset();
  m.logVerifyFailures.reset();
  if (!last) return;
  m.logVerifyOk.set(last.ok ? 1 : 0);
  m.logVerifyLastRun.set(last.finishedAt.getTime() / 1000);
  m.logVerifyFailures.set(last.failureCount);
}
