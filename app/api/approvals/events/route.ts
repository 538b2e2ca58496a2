import { Role } from '@/lib/server/auth/roles';
import { sessionStillAllows } from '@/lib/server/auth/user-sessions';
import { ticketEventStream } from '@/lib/server/approvals/event-stream';
import { route } from '@/lib/server/http/route';

export const dynamic = 'force-dynamic';

/** The inbox's live feed (Server-Sent Events); see lib/server/approvals/event-stream.ts. */
const ROLES = [Role.admin, Role.reviewer, Role.auditor];

export const GET = route({ auth: 'user', roles: ROLES }, ({ req, user }) =>
  ticketEventStream(req.signal, () => sessionStillAllows(user.sessionId, user.id, ROLES)),
);
