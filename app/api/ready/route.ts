import { getReadiness, readinessHttpStatus } from '@/lib/server/health/readiness';

/** Readiness: 200 ready/degraded (Redis down), 503 when the database cannot serve. */
export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  const readiness = await getReadiness();
  return Response.json(readiness, {
    status: readinessHttpStatus(readiness),
    headers: { 'cache-control': 'no-store' },
  });
}
