import { storedContextTextOf } from '@/lib/server/approvals/stored-context';
import { Role } from '@/lib/server/auth/roles';
import { notFound } from '@/lib/server/http/api-error';
import { route } from '@/lib/server/http/route';
import { isUuid } from '@/lib/server/http/uuid';

export const dynamic = 'force-dynamic';

/**
 * GET /api/approvals/{id}/context: the ticket's context as the exact stored
 * text (its canonical JSON, what the identity covers), for the ticket page's
 * "Download JSON" and "Copy JSON" (issue 14). Reviewers, auditors and admins;
 * `?download=1` answers it as an attachment.
 */
export const GET = route(
  { auth: 'user', roles: [Role.admin, Role.reviewer, Role.auditor] },
  async ({ req, params }) => {
    const id = String(params.id);
    const text = isUuid(id) ? await storedContextTextOf(id) : null;
    if (text === null) throw notFound('The ticket');
    const download = new URL(req.url).searchParams.get('download') === '1';
    return new Response(text, {
      status: 200,
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        ...(download
          ? { 'Content-Disposition': `attachment; filename="ticket-${id}-context.json"` }
          : {}),
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      },
    });
  },
);
