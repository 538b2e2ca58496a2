import { Role } from '@/lib/server/auth/roles';
import { inboxSummary } from '@/lib/server/approvals/inbox';
import { route } from '@/lib/server/http/route';

export const dynamic = 'force-dynamic';

/** The polling fallback of the live queue: `{pending, latest}`, cheap to ask every few seconds. */
export const GET = route({ auth: 'user', roles: [Role.admin, Role.reviewer, Role.auditor] }, () =>
  inboxSummary(),
);
