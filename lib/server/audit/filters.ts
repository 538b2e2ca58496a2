import 'server-only';
import { z } from 'zod';
import { DECISIONS, INTERCEPTION_POINTS, MODES } from '@checkpoint/agent-hooks';
import { invalidRequest } from '@/lib/server/http/api-error';
import { isUuid } from '@/lib/server/http/uuid';

/**
 * The audit search's filters, as they live in the URL (so a search can be
 * bookmarked, shared and exported as-is). One parser serves the page and
 * the export endpoint, so both always mean the same rows.
 */

export const RESOLVED_FILTERS = ['approval', 'rejection', 'none'] as const;
export type ResolvedFilter = (typeof RESOLVED_FILTERS)[number];

export type AuditFilters = {
  sessionId?: string;
  agentId?: string;
  hostId?: string;
  point?: (typeof INTERCEPTION_POINTS)[number];
  decision?: (typeof DECISIONS)[number];
  /** Matches reasons that start with this text (`host_error:` finds every host error). */
  reasonPrefix?: string;
  /** `none`: the approval seam was never consulted (§10.3 `resolved_by` absent). */
  resolvedBy?: ResolvedFilter;
  foldTruncated?: boolean;
  hostErrorsOnly?: boolean;
  mode?: (typeof MODES)[number];
  /** Received at or after (inclusive). */
  from?: Date;
  /** Received before (exclusive). */
  to?: Date;
};

/** URL parameter names, in the order they are written back. */
export const FILTER_PARAMS = [
  'session',
  'agent',
  'host',
  'point',
  'decision',
  'reason',
  'resolved',
  'fold',
  'host_error',
  'mode',
  'from',
  'to',
] as const;

// PostgreSQL text cannot hold U+0000; a filter carrying one could match nothing and would fail in the query.
const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((v) => !v.includes('\u0000'), 'must not contain U+0000');
const optionalEnum = <T extends readonly [string, ...string[]]>(values: T) =>
  z.union([z.literal(''), z.enum(values)]).optional();

/**
 * A moment from the form: an ISO time, or the `datetime-local` spelling
 * without a zone, which the form labels as UTC.
 */
const moment = z
  .string()
  .trim()
  .max(40)
  .transform((v, ctx) => {
    if (v === '') return undefined;
    const hasZone = /(?:Z|[+-]\d\d:?\d\d)$/i.test(v);
    const date = new Date(hasZone ? v : `${v}Z`);
    if (!/^\d{4}-\d\d-\d\d/.test(v) || Number.isNaN(date.getTime())) {
      ctx.addIssue({ code: 'custom', message: 'must be a date and time (UTC)' });
      return z.NEVER;
    }
    return date;
  })
  .optional();

const schema = z.object({
  session: text(512).optional(),
  agent: text(512).optional(),
  host: z
    .string()
    .trim()
    .refine((v) => v === '' || isUuid(v), 'must be a host id')
    .optional(),
  point: optionalEnum(INTERCEPTION_POINTS as unknown as readonly [string, ...string[]]),
  decision: optionalEnum(DECISIONS as unknown as readonly [string, ...string[]]),
  reason: text(256).optional(),
  resolved: optionalEnum(RESOLVED_FILTERS),
  fold: optionalEnum(['true', 'false'] as const),
  host_error: optionalEnum(['1', 'true', 'on'] as const),
  mode: optionalEnum(MODES as unknown as readonly [string, ...string[]]),
  from: moment,
  to: moment,
});

export type RawParams = Record<string, string | string[] | undefined>;

function firstValues(raw: RawParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of FILTER_PARAMS) {
    const v = raw[key];
    const value = Array.isArray(v) ? v[0] : v;
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * Parses the URL's filters. Unknown parameters are ignored (the page has
 * its own, like `cursor`); a bad value is a 400 `filter_invalid` naming
 * the parameter, never a silently wider search.
 */
export function parseAuditFilters(raw: RawParams): AuditFilters {
  const parsed = schema.safeParse(firstValues(raw));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = String(issue?.path[0] ?? 'query');
    throw invalidRequest(
      `The filter "${param}" is not valid: ${issue?.message ?? 'bad value'}.`,
      { param },
      'filter_invalid',
    );
  }
  const p = parsed.data;
  const f: AuditFilters = {};
  if (p.session) f.sessionId = p.session;
  if (p.agent) f.agentId = p.agent;
  if (p.host) f.hostId = p.host.toLowerCase();
  if (p.point) f.point = p.point as AuditFilters['point'];
  if (p.decision) f.decision = p.decision as AuditFilters['decision'];
  if (p.reason) f.reasonPrefix = p.reason;
  if (p.resolved) f.resolvedBy = p.resolved;
  if (p.fold) f.foldTruncated = p.fold === 'true';
  if (p.host_error) f.hostErrorsOnly = true;
  if (p.mode) f.mode = p.mode as AuditFilters['mode'];
  if (p.from) f.from = p.from;
  if (p.to) f.to = p.to;
  if (f.from && f.to && f.from >= f.to) {
    throw invalidRequest('"from" must be before "to".', { param: 'from' }, 'filter_invalid');
  }
  return f;
}

/** The filters back as URL parameters (empty ones left out), for links and exports. */
export function filtersToParams(f: AuditFilters): URLSearchParams {
  const p = new URLSearchParams();
  if (f.sessionId) p.set('session', f.sessionId);
  if (f.agentId) p.set('agent', f.agentId);
  if (f.hostId) p.set('host', f.hostId);
  if (f.point) p.set('point', f.point);
  if (f.decision) p.set('decision', f.decision);
  if (f.reasonPrefix) p.set('reason', f.reasonPrefix);
  if (f.resolvedBy) p.set('resolved', f.resolvedBy);
  if (f.foldTruncated !== undefined) p.set('fold', String(f.foldTruncated));
  if (f.hostErrorsOnly) p.set('host_error', '1');
  if (f.mode) p.set('mode', f.mode);
  if (f.from) p.set('from', f.from.toISOString());
  if (f.to) p.set('to', f.to.toISOString());
  return p;
}

export function hasAnyFilter(f: AuditFilters): boolean {
  return Object.keys(f).length > 0;
}
