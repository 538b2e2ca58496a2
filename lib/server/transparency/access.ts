import 'server-only';
import { AREAS, hasAnyRole } from '@/lib/server/auth/roles';
import { getCurrentUser } from '@/lib/server/auth/session';
import { forbidden, unauthenticated } from '@/lib/server/http/api-error';
import { authenticateHost } from '@/lib/server/http/host-auth';

/**
 * Who may read the log's API. Signed-in auditors and admins read all of it
 * (the pages they use verify every record). A host, with its API key, reads
 * tree heads and consistency proofs (sizes and hashes only: they say
 * nothing about any record) and inclusion proofs of its OWN records and
 * decisions, so it can prove to its auditors what it sent; another host's
 * leaf is 404, as everywhere else in the API. A request with an
 * Authorization header is judged by the key alone.
 */
export type LogReader = { kind: 'auditor' } | { kind: 'host'; hostId: string };

export async function logReader(req: Request): Promise<LogReader> {
  if (req.headers.has('authorization')) {
    const host = await authenticateHost(req);
    return { kind: 'host', hostId: host.hostId };
  }
  const user = await getCurrentUser();
  if (!user) throw unauthenticated();
  if (!hasAnyRole(user.roles, AREAS.audit.roles)) {
    throw forbidden('Reading the transparency log needs the auditor role.');
  }
  return { kind: 'auditor' };
}
