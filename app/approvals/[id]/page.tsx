import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { ContextTools } from '@/app/components/approvals/context-tools';
import { Countdown } from '@/app/components/approvals/countdown';
import { JsonTree } from '@/app/components/approvals/json-tree';
import { ResolverBadge, ResolverHold } from '@/app/components/approvals/resolver-hold';
import { TicketStatusBadge } from '@/app/components/approvals/ticket-status';
import { TicketWatch } from '@/app/components/approvals/ticket-watch';
import { Card } from '@/app/components/page-header';
import { Time } from '@/app/components/time';
import { TARGET_LOCATIONS, TRANSFORM_FORBIDDEN_POINTS } from '@checkpoint/agent-hooks';
import { AREAS, canUseArea, hasAnyRole, Role } from '@/lib/server/auth/roles';
import { requireUser } from '@/lib/server/auth/session';
import { DecisionPanel } from './decision-panel';
import { DecisionSummary } from './decision-summary';
import { IdentityBlock } from './identity-block';
import { ReceiptCard } from './receipt-card';
import { getInboxTicket } from './ticket';
import { VerdictDetails } from './verdict-details';
import { suggestedPath, TARGET_BY_POINT } from '@/lib/server/hosts/redaction-coverage';

/** The tab says what is asked and where (issue 14): "wire_transfer · payments". */
export async function generateMetadata({
  params,
}: {
  params: Promise<{ id: string }>;
}): Promise<Metadata> {
  const t = await getInboxTicket((await params).id);
  return { title: t ? `${t.toolName ?? t.interceptionPoint} · ${t.hostName}` : 'Approval ticket' };
}

/**
 * One ticket: what is asked at a glance, the decision always in view (a
 * sticky column on wide screens, right under the summary on narrow ones),
 * then the evidence, the redacted context and the identity.
 */
export default async function TicketPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  /** `at` and `from`: which part of a long array or object of the context is shown. */
  searchParams: Promise<{ at?: string; from?: string }>;
}) {
  const user = await requireUser(Role.admin, Role.reviewer, Role.auditor);
  const { id } = await params;
  const { at, from } = await searchParams;
  const t = await getInboxTicket(id);
  if (!t) notFound();
  const now = new Date().toISOString();
  const canDecide = hasAnyRole(user.roles, AREAS.approvals.roles);
  // Issue 6: while the resolver holds it, reviewers wait (decideTicket refuses them too).
  const heldUntil =
    t.status === 'pending' && t.resolverUntil && t.resolverUntil > new Date(now)
      ? t.resolverUntil.toISOString()
      : null;
  const context = t.context as Record<string, unknown>;
  const title = t.toolName ?? t.interceptionPoint;
  // The target is shown once (issue 14): above, and not again under its alias (§4.3).
  const { target: _target, ...rest } = context;
  const location = TARGET_LOCATIONS[t.interceptionPoint as keyof typeof TARGET_LOCATIONS];
  const alias = location ? location.join('.') : null;
  const base = `/approvals/${encodeURIComponent(t.id)}`;
  const page = {
    path: at ?? '',
    from: Number.parseInt(from ?? '0', 10) || 0,
    href: (path: string, start: number) =>
      `${base}?${new URLSearchParams({ at: path, from: String(start) })}`,
  };
  // Paging inside the full context keeps it open.
  const fullOpen = at !== undefined && at !== 'target' && !at.startsWith('target');
  const redactedTarget = t.redactedContextPaths
    .filter((p) => p.startsWith('target'))
    .map((p) => `$${p}`);

  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link href="/approvals" className="text-indigo-700 hover:underline">
          ← Approvals
        </Link>
      </nav>
      <div className="grid items-start gap-4 lg:grid-cols-[minmax(0,1fr)_24rem]">
        <header className="space-y-1 lg:col-start-1">
          <div className="flex flex-wrap items-center gap-2">
            <h1 className="text-xl font-semibold tracking-tight text-slate-900">{title}</h1>
            <TicketStatusBadge status={t.status} />
            {heldUntil ? (
              <ResolverBadge until={heldUntil} />
            ) : (
              t.status === 'pending' && (
                <Countdown
                  deadline={t.expiresAt.toISOString()}
                  now={now}
                  created={t.createdAt.toISOString()}
                />
              )
            )}
          </div>
          <dl className="flex flex-wrap gap-x-5 gap-y-1 text-sm text-slate-600">
            <Meta label="Point">{t.interceptionPoint}</Meta>
            <Meta label="Reason">
              <span className="font-mono">{t.reason ?? '—'}</span>
            </Meta>
            <Meta label="Agent">{t.agentLabel ? `${t.agentLabel} (${t.agentId})` : t.agentId}</Meta>
            <Meta label="Host">{t.hostName}</Meta>
            <Meta label="Asked">
              <Time value={t.createdAt.toISOString()} now={now} />
            </Meta>
          </dl>
        </header>

        <aside
          aria-label="Decision"
          className="lg:sticky lg:top-4 lg:col-start-2 lg:row-span-3 lg:row-start-1"
        >
          <Card title={t.status === 'pending' ? 'Decision' : 'Decided'}>
            {t.status === 'pending' && <TicketWatch ticketId={t.id} />}
            {heldUntil ? (
              <ResolverHold until={heldUntil} />
            ) : t.status === 'pending' && canDecide ? (
              <DecisionPanel
                ticketId={t.id}
                contextIdentity={t.contextIdentity}
                target={context.target}
                redactedPaths={redactedTarget}
                editable={
                  !(TRANSFORM_FORBIDDEN_POINTS as readonly string[]).includes(t.interceptionPoint)
                }
                deadline={t.expiresAt.toISOString()}
              />
            ) : t.status === 'pending' ? (
              <p className="text-sm text-slate-600" data-testid="read-only">
                Read-only: reviewers and admins decide; you can see the ticket and its context.
              </p>
            ) : (
              <DecisionSummary ticket={t} now={now} />
            )}
            <p className="mt-3 border-t border-slate-100 pt-2 text-xs text-slate-500">
              The decision is bound to identity{' '}
              <code className="break-all font-mono">{t.contextIdentity ?? 'null'}</code>
              {t.status === 'pending' && ', the one shown on this page'}.
            </p>
          </Card>
        </aside>

        <div className="space-y-4 lg:col-start-1">
          <VerdictDetails ticket={t} />
          <Card title="Context (as shown to reviewers, after redaction)">
            <RedactionMissNotice point={t.interceptionPoint} misses={t.redactionMisses} />
            {t.redactedPaths.length > 0 && (
              <p className="mb-2 text-xs text-slate-600">
                The host redacted{' '}
                {t.redactedPaths.length === 1 ? 'one value' : `${t.redactedPaths.length} values`}{' '}
                before sending: <code className="font-mono">{t.redactedPaths.join(', ')}</code>.
              </p>
            )}
            <div data-context-scope="ticket">
              <ContextTools ticketId={t.id} scope="ticket" />
              <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">
                Target <span className="font-normal normal-case">(what the decision is about)</span>
              </h3>
              <JsonTree
                value={context.target}
                rootPath="target"
                highlight={['target']}
                redacted={t.redactedContextPaths}
                page={page}
              />
              <details className="mt-3 border-t border-slate-100 pt-2" open={fullOpen}>
                <summary className="text-sm font-medium text-slate-700">
                  Full context (the session, agent and everything else the host sent)
                </summary>
                <div className="mt-1">
                  <JsonTree
                    value={rest}
                    redacted={t.redactedContextPaths}
                    elided={alias ? { [alias]: 'the target, shown above' } : {}}
                    page={page}
                  />
                </div>
              </details>
            </div>
          </Card>
          <IdentityBlock ticket={t} canAudit={canUseArea(user.roles, 'audit')} />
          {t.status !== 'pending' && <ReceiptCard ticketId={t.id} />}
        </div>
      </div>
    </>
  );
}

function Meta({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex gap-1">
      <dt className="text-slate-500">{label}:</dt>
      <dd className="text-slate-800">{children}</dd>
    </div>
  );
}

/**
 * The host's redaction paths that matched nothing in this request: nothing
 * was hidden for them, so a secret they were meant to hide may be shown
 * below (issue 14). Names the spelling that would have matched.
 */
function RedactionMissNotice({ point, misses }: { point: string; misses: string[] }) {
  if (misses.length === 0) return null;
  const target = TARGET_BY_POINT[point];
  return (
    <div
      role="note"
      data-testid="redaction-miss"
      className="mb-3 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900"
    >
      <p>
        {misses.length === 1 ? 'The redaction path ' : 'The redaction paths '}
        {misses.map((m, i) => (
          <span key={m}>
            {i > 0 && ', '}
            <code className="font-mono">{m}</code>
          </span>
        ))}{' '}
        configured for this host matched nothing in this request, so nothing was hidden for{' '}
        {misses.length === 1 ? 'it' : 'them'}: a value meant to be hidden may be shown below.
      </p>
      {target && (
        <p className="mt-1 text-xs">
          At <code className="font-mono">{point}</code>, <code className="font-mono">$target</code>{' '}
          is {target.is}.
          {misses.map((m) => {
            const better = suggestedPath(m, point);
            return better ? (
              <span key={m}>
                {' '}
                Did you mean <code className="font-mono">{better}</code>?
              </span>
            ) : null;
          })}
        </p>
      )}
    </div>
  );
}
