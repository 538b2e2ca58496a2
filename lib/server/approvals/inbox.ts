import 'server-only';
import type { Prisma } from '@/lib/generated/prisma/client';
import type { TicketStatus } from '@/lib/generated/prisma/enums';
import {
  type AgentContext,
  formatPath,
  INTERCEPTION_POINTS,
  parseTransformPath,
  TARGET_LOCATIONS,
} from '@checkpoint/agent-hooks';
import { db } from '@/lib/server/db';
import { isUuid, uuidOrNil } from '@/lib/server/http/uuid';
import { storedContext } from './stored-context';
import type { DenySet } from './validate-deny-set';

/**
 * The reviewer inbox's read side: the queue (filters, counts, pages) and
 * one ticket with everything a reviewer needs. Writes go through
 * `decideTicket` (decide.ts); nothing here changes a ticket.
 *
 * The queue page must render in ≤ 300 ms with 10,000 pending tickets, so:
 * pending rows come from the (status, expiresAt) index one page at a time,
 * counts are one GROUP BY, and nothing loads contexts for the list.
 */

export const INBOX_PAGE_SIZE = 50;
export const TICKET_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
const DECIDED: TicketStatus[] = ['approved', 'rejected', 'expired'];

/**
 * The queue's filters (issue 14: they match what the screen shows). `agent`
 * is an agent's id or its label (any case); `session` a session id's
 * beginning or its label (any case); `reason` a reason's beginning; `q`
 * free text found in the tool, reason, agent, session or host; `sort` the
 * order of pending tickets.
 */
export type InboxFilters = {
  host?: string;
  agent?: string;
  point?: string;
  reason?: string;
  status?: TicketStatus;
  session?: string;
  q?: string;
  sort?: InboxSort;
  /** 1-based. */
  page?: number;
};

/** Pending tickets by soonest deadline (the default), newest or oldest request first. */
export const INBOX_SORTS = ['deadline', 'newest', 'oldest'] as const;
export type InboxSort = (typeof INBOX_SORTS)[number];

export type InboxRow = {
  id: string;
  hostId: string;
  hostName: string;
  agentId: string;
  agentLabel: string | null;
  sessionId: string;
  sessionLabel: string | null;
  interceptionPoint: string;
  toolName: string | null;
  reason: string | null;
  status: TicketStatus;
  createdAt: Date;
  expiresAt: Date;
  decidedAt: Date | null;
  decidedBy: string | null;
  /** With the automated resolver until then, if that is ahead (issue 6; resolver-phase.ts). */
  resolverUntil: Date | null;
};

export type InboxPage = {
  rows: InboxRow[];
  /** Per status under the other filters (the status filter itself is left out). */
  counts: Record<TicketStatus | 'all', number>;
  total: number;
  page: number;
  pageCount: number;
};

/** Parses the queue's URL parameters; anything unknown is dropped, never guessed. */
export function parseInboxFilters(
  params: Record<string, string | string[] | undefined>,
): InboxFilters {
  const one = (k: string) => {
    const v = params[k];
    const s = (Array.isArray(v) ? v[0] : v)?.trim();
    return s ? s.slice(0, 200) : undefined;
  };
  const status = one('status');
  const point = one('point');
  const sort = one('sort');
  const page = Number(one('page') ?? '1');
  return {
    host: one('host'),
    agent: one('agent'),
    point: point && (INTERCEPTION_POINTS as readonly string[]).includes(point) ? point : undefined,
    reason: one('reason'),
    status: (TICKET_STATUSES as readonly string[]).includes(status ?? '')
      ? (status as TicketStatus)
      : undefined,
    session: one('session'),
    q: one('q'),
    sort: (INBOX_SORTS as readonly string[]).includes(sort ?? '') ? (sort as InboxSort) : undefined,
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
  };
}

function whereOf(f: InboxFilters): Prisma.ApprovalTicketWhereInput {
  const where: Prisma.ApprovalTicketWhereInput = {};
  const all: Prisma.ApprovalTicketWhereInput[] = [];
  if (f.host) where.hostId = uuidOrNil(f.host);
  if (f.point) where.interceptionPoint = f.point;
  if (f.reason) where.reason = { startsWith: f.reason };
  // What the screen shows is the label; the id is what a link or a log carries.
  if (f.agent)
    all.push({
      OR: [{ agentId: f.agent }, { agentLabel: { equals: f.agent, mode: 'insensitive' } }],
    });
  if (f.session)
    all.push({
      OR: [
        { sessionId: { startsWith: f.session } },
        { sessionLabel: { equals: f.session, mode: 'insensitive' } },
      ],
    });
  if (f.q) {
    const has = { contains: f.q, mode: 'insensitive' } as const;
    all.push({
      OR: [
        { toolName: has },
        { reason: has },
        { agentId: has },
        { agentLabel: has },
        { sessionId: has },
        { sessionLabel: has },
        { host: { name: has } },
      ],
    });
  }
  if (all.length > 0) where.AND = all;
  return where;
}

const PENDING_ORDER: Record<InboxSort, Prisma.ApprovalTicketOrderByWithRelationInput[]> = {
  deadline: [{ expiresAt: 'asc' }, { id: 'asc' }],
  newest: [{ createdAt: 'desc' }, { id: 'asc' }],
  oldest: [{ createdAt: 'asc' }, { id: 'asc' }],
};

const rowSelect = {
  id: true,
  hostId: true,
  agentId: true,
  agentLabel: true,
  sessionId: true,
  sessionLabel: true,
  interceptionPoint: true,
  toolName: true,
  reason: true,
  status: true,
  createdAt: true,
  expiresAt: true,
  decidedAt: true,
  resolverUntil: true,
  host: { select: { name: true } },
  decision: { select: { decidedByKind: true, user: { select: { email: true } } } },
} satisfies Prisma.ApprovalTicketSelect;

type RowData = Prisma.ApprovalTicketGetPayload<{ select: typeof rowSelect }>;

function toRow(t: RowData): InboxRow {
  const { host, decision, ...rest } = t;
  return {
    ...rest,
    hostName: host.name,
    decidedBy: decision ? (decision.user?.email ?? decision.decidedByKind) : null,
  };
}

/**
 * One page of the queue: pending tickets first, soonest deadline first,
 * then decided ones, most recent first. Offset pages over the two parts
 * concatenated (a page may straddle the boundary).
 */
export async function listInboxTickets(filters: InboxFilters): Promise<InboxPage> {
  const prisma = await db();
  const base = whereOf(filters);
  const grouped = await prisma.approvalTicket.groupBy({
    by: ['status'],
    where: base,
    _count: { _all: true },
  });
  const counts = { all: 0, pending: 0, approved: 0, rejected: 0, expired: 0 };
  for (const g of grouped) {
    counts[g.status] = g._count._all;
    counts.all += g._count._all;
  }
  const total = filters.status ? counts[filters.status] : counts.all;
  const pageCount = Math.max(1, Math.ceil(total / INBOX_PAGE_SIZE));
  const page = Math.min(filters.page ?? 1, pageCount);
  const offset = (page - 1) * INBOX_PAGE_SIZE;

  const pendingWanted = !filters.status || filters.status === 'pending';
  const decidedStatuses = filters.status ? DECIDED.filter((s) => s === filters.status) : DECIDED;
  const pendingTotal = pendingWanted ? counts.pending : 0;
  const rows: RowData[] = [];
  if (pendingWanted && offset < pendingTotal) {
    rows.push(
      ...(await prisma.approvalTicket.findMany({
        where: { ...base, status: 'pending' },
        orderBy: PENDING_ORDER[filters.sort ?? 'deadline'],
        skip: offset,
        take: INBOX_PAGE_SIZE,
        select: rowSelect,
      })),
    );
  }
  const room = INBOX_PAGE_SIZE - rows.length;
  if (room > 0 && decidedStatuses.length > 0) {
    rows.push(
      ...(await prisma.approvalTicket.findMany({
        where: { ...base, status: { in: decidedStatuses } },
        orderBy: [{ decidedAt: { sort: 'desc', nulls: 'last' } }, { expiresAt: 'desc' }],
        skip: Math.max(0, offset - pendingTotal),
        take: room,
        select: rowSelect,
      })),
    );
  }
  return { rows: rows.map(toRow), counts, total, page, pageCount };
}

/** The hosts, for the host filter (a short list: hosts are registered by admins). */
export async function listInboxHosts(): Promise<{ id: string; name: string }[]> {
  const prisma = await db();
  return prisma.host.findMany({ select: { id: true, name: true }, orderBy: { name: 'asc' } });
}

/** For the polling fallback: enough to notice that something changed. */
export async function inboxSummary(): Promise<{ pending: number; latest: string | null }> {
  const prisma = await db();
  const [pending, latest] = await Promise.all([
    prisma.approvalTicket.count({ where: { status: 'pending' } }),
    prisma.approvalTicket.findFirst({
      orderBy: { createdAt: 'desc' },
      select: { id: true, createdAt: true },
    }),
  ]);
  return { pending, latest: latest ? `${latest.createdAt.toISOString()}/${latest.id}` : null };
}

/** The deny set that led here: verdicts summary, `fold_truncated`, profile (§10.3). */
export type FoldSummary = {
  /**
   * `deny_set`: what the host sent with the request, known while pending;
   * `record`: the emission's record, for hosts that send none.
   */
  source: 'deny_set' | 'record';
  verdicts: { index: number; decision: string; reason?: string; name?: string }[];
  foldTruncated: boolean | null;
  interceptorsRegistered: number | null;
  profile: string | null;
  /** Index of the interceptor whose liftable deny was consulted (§7.6); null if synthesized or unknown. */
  consulted: number | null;
  /** Registered interceptors that never ran, when `foldTruncated` and the counts say how many. */
  skipped: number | null;
};

export type InboxTicket = Omit<
  NonNullable<Awaited<ReturnType<typeof loadTicket>>>,
  'contextJson'
> & {
  /** Parsed from the exact stored text (stored-context.ts): every member the identity covers. */
  context: AgentContext;
  hostName: string;
  /** Context paths (`target.x`, `tool_call.args.x`) holding redacted values. */
  redactedContextPaths: string[];
  fold: FoldSummary | null;
};

async function loadTicket(id: string) {
  const prisma = await db();
  return prisma.approvalTicket.findUnique({
    where: { id },
    select: {
      id: true,
      hostId: true,
      contextIdentity: true,
      identityProvider: true,
      interceptionPoint: true,
      verdict: true,
      contextJson: true,
      redactedPaths: true,
      redactionMisses: true,
      sessionId: true,
      sequence: true,
      agentId: true,
      sessionLabel: true,
      agentLabel: true,
      toolName: true,
      reason: true,
      status: true,
      createdAt: true,
      expiresAt: true,
      decidedAt: true,
      resolution: true,
      denySet: true,
      resolverUntil: true,
      host: { select: { name: true } },
      decision: {
        select: {
          outcome: true,
          verdict: true,
          decidedByKind: true,
          note: true,
          createdAt: true,
          user: { select: { email: true, name: true } },
        },
      },
    },
  });
}

/** One ticket with its host, decision and fold summary; null when there is none. */
export async function getInboxTicket(id: string): Promise<InboxTicket | null> {
  if (!isUuid(id)) return null;
  const ticket = await loadTicket(id);
  if (!ticket) return null;
  const { contextJson, ...rest } = ticket;
  return {
    ...rest,
    context: await storedContext(ticket.id, contextJson),
    hostName: ticket.host.name,
    redactedContextPaths: redactedContextPaths(ticket.interceptionPoint, ticket.redactedPaths),
    fold: await foldSummary(ticket),
  };
}

/**
 * `$target.x` lives twice in a context: under `target` and under the field
 * it aliases (§4.3), and the redactor writes both; mark both.
 */
export function redactedContextPaths(point: string, paths: readonly string[]): string[] {
  const alias = TARGET_LOCATIONS[point as keyof typeof TARGET_LOCATIONS];
  const out: string[] = [];
  for (const p of paths) {
    const parsed = parseTransformPath(p);
    if (!parsed.ok) continue;
    // Normalized spelling, so the UI can compare paths as strings.
    const rest = formatPath(parsed.segments).slice('$target'.length);
    out.push(`target${rest}`);
    if (alias) out.push(`${alias.join('.')}${rest}`);
  }
  return out;
}

/**
 * The verdicts summary and `fold_truncated`: from the deny set the host sent
 * at consultation time (what the reviewer decides on, so it stays after the
 * decision), else from the emission's record (§10.3), linked by ticket or by
 * host + session + sequence. A pending ticket from a host that sends no deny
 * set usually has no record yet: null then.
 */
async function foldSummary(ticket: {
  id: string;
  hostId: string;
  sessionId: string;
  sequence: number | null;
  denySet: unknown;
}): Promise<FoldSummary | null> {
  const sent = ticket.denySet as DenySet | null;
  if (sent && typeof sent === 'object') {
    return summaryOf('deny_set', {
      verdicts: sent.verdicts,
      foldTruncated: sent.fold_truncated,
      interceptorsRegistered: sent.interceptors_registered,
      profile: sent.composition.profile,
      consulted: sent.decided_by ?? null,
    });
  }
  const prisma = await db();
  const or: Prisma.InterceptionRecordWhereInput[] = [{ ticketId: ticket.id }];
  if (ticket.sequence !== null) {
    or.push({ hostId: ticket.hostId, sessionId: ticket.sessionId, sequence: ticket.sequence });
  }
  const row = await prisma.interceptionRecord.findFirst({
    where: { OR: or },
    select: { record: true },
  });
  const record = row?.record as Record<string, unknown> | null | undefined;
  if (!record || typeof record !== 'object') return null;
  const composition = record.composition as { profile?: unknown } | undefined;
  const verdicts = Array.isArray(record.verdicts)
    ? (record.verdicts as FoldSummary['verdicts'])
    : [];
  // The record's decided_by is the consulted index (§7.6) when it names a deny.
  const decidedBy = typeof record.decided_by === 'number' ? record.decided_by : null;
  const consulted = verdicts.some((v) => v.index === decidedBy && v.decision === 'deny')
    ? decidedBy
    : null;
  return summaryOf('record', {
    verdicts,
    foldTruncated: typeof record.fold_truncated === 'boolean' ? record.fold_truncated : null,
    interceptorsRegistered:
      typeof record.interceptors_registered === 'number' ? record.interceptors_registered : null,
    profile: typeof composition?.profile === 'string' ? composition.profile : null,
    consulted,
  });
}

function summaryOf(
  source: FoldSummary['source'],
  s: Omit<FoldSummary, 'source' | 'skipped'>,
): FoldSummary {
  // Countable only with a summary: first_deny records may omit it (§10.3 OPTIONAL there).
  const skipped =
    s.foldTruncated && s.interceptorsRegistered !== null && s.verdicts.length > 0
      ? Math.max(0, s.interceptorsRegistered - s.verdicts.length)
      : null;
  return { source, ...s, verdicts: [...s.verdicts].sort((a, b) => a.index - b.index), skipped };
}
