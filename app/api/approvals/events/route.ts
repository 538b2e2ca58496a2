import { Role } from '@/lib/server/auth/roles';
import { ticketEventStream } from '@/lib/server/approvals/event-stream';
import { route } from '@/lib/server/http/route';

export const dynamic = 'force-dynamic';

/** The inbox's live feed (Server-Sent Events); see lib/server/approvals/event-stream.ts. */
export const GET = route(
  { auth: 'user', roles: [Role.admin, Role.reviewer, Role.auditor] },
  ({ req }) => ticketEventStream(req.signal),
);
