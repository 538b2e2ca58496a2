import { getReadiness, readinessHttpStatus } from '@/lib/server/health/readiness';

/**
 * Readiness: 200 ready or degraded (Redis down), 503 when the app cannot
 * serve (database unreachable, migrations pending, no enabled admin), with
 * `reasons` naming why. Answers within a few seconds whatever hangs.
 */
export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  const readiness = await getReadiness();
  const status = readinessHttpStatus(readiness);
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (status === 503) headers['retry-after'] = '5';
  return Response.json(readiness, { status, headers });
}
