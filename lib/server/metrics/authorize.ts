import 'server-only';
import { timingSafeEqual } from 'node:crypto';
import { hasAnyRole } from '@/lib/server/auth/roles';
import { getCurrentUser } from '@/lib/server/auth/session';
import { config } from '@/lib/server/config';
import { forbidden, unauthenticated } from '@/lib/server/http/api-error';

/**
 * Who may read /api/metrics: a scraper sending `Authorization: Bearer
 * $METRICS_TOKEN`, or a signed-in person with the auditor role (admins
 * pass). A wrong token is refused even for a signed-in auditor, so a
 * misconfigured scraper is noticed rather than carried by a browser session.
 */
export async function authorizeMetrics(req: Request): Promise<void> {
  const token = config().METRICS_TOKEN;
  const header = req.headers.get('authorization');
  if (header) {
    const sent = /^Bearer +(\S+) *$/i.exec(header)?.[1];
    if (token && sent && sameSecret(sent, token)) return;
    throw unauthenticated('Send the metrics token as "Authorization: Bearer <token>".');
  }
  const user = await getCurrentUser();
  if (!user) throw unauthenticated('Sign in, or send the metrics token.');
  if (!hasAnyRole(user.roles, ['auditor'])) throw forbidden();
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
