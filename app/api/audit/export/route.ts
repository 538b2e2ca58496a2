import { z } from 'zod';
import { parseAuditFilters } from '@/lib/server/audit/filters';
import { EXPORT_FORMATS, type ExportScope, exportRecords } from '@/lib/server/audit/export';
import { AREAS } from '@/lib/server/auth/roles';
import { AppError } from '@/lib/server/http/api-error';
import { route } from '@/lib/server/http/route';

export const dynamic = 'force-dynamic';

const scopeSchema = z.object({
  format: z.enum(EXPORT_FORMATS),
  /** `session`: a whole session of `host` (ids are per host), in sequence order. */
  scope: z.enum(['query', 'session']).default('query'),
  /** JSONL: add the consistency proof from the signed tree head of this size to the export's. */
  consistency_from: z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number)
    .optional(),
});

/**
 * GET /api/audit/export?format=jsonl|csv&…the search's filters…, or
 * `scope=session&host=<id>&session=<id>` for one session; JSONL is the
 * signed, offline-verifiable format (docs/verifying.md), with
 * `consistency_from=N` adding a consistency proof from size N. Streamed;
 * `X-Total-Count` (when known) lets the browser show progress.
 */
export const GET = route({ auth: 'user', roles: [...AREAS.audit.roles] }, async ({ req, user }) => {
  const params = Object.fromEntries(req.nextUrl.searchParams);
  const parsed = scopeSchema.safeParse(params);
  if (!parsed.success) {
    const bad = parsed.error.issues[0]?.path[0];
    if (bad === 'consistency_from') {
      throw new AppError('filter_invalid', 'consistency_from must be a tree size (an integer).', {
        param: 'consistency_from',
      });
    }
    throw new AppError('format_invalid', 'Choose an export format: jsonl or csv.', {
      param: 'format',
    });
  }
  const filters = parseAuditFilters(params);
  let scope: ExportScope;
  if (parsed.data.scope === 'session') {
    if (!filters.hostId || !filters.sessionId) {
      throw new AppError('filter_invalid', 'A session export needs both "host" and "session".');
    }
    scope = { kind: 'session', hostId: filters.hostId, sessionId: filters.sessionId };
  } else {
    scope = { kind: 'query', filters };
  }
  const out = await exportRecords(user, scope, parsed.data.format, {
    consistencyFrom: parsed.data.consistency_from,
  });
  const headers = new Headers({
    'Content-Type': out.contentType,
    'Content-Disposition': `attachment; filename="${out.filename}"`,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  if (out.total !== null) headers.set('X-Total-Count', String(out.total));
  return new Response(out.body, { status: 200, headers });
});
