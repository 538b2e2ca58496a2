import type { Metadata } from 'next';
import Link from 'next/link';
import { Breadcrumb } from '@/app/components/breadcrumb';
import { Card, PageHeader } from '@/app/components/page-header';
import { Time } from '@/app/components/time';
import { requireArea } from '@/lib/server/auth/session';
import { describeUrlRule, guardOptionsFromConfig } from '@/lib/server/net/ssrf';
import { TIMEOUT_LIMITS, getHostWebhooks, type WebhookView } from '@/lib/server/webhooks/webhooks';
import { hostOr404 } from '../../host-or-404';
import { SelfTestResultView } from './self-test-result';
import { WebhookAlerts } from './webhook-alerts';
import {
  DeleteButton,
  EnableButton,
  RotateSecretForm,
  SelfTestButton,
  WebhookForm,
} from './webhook-forms';

export const metadata: Metadata = { title: 'Webhooks' };

export default async function HostWebhooksPage({ params }: { params: Promise<{ id: string }> }) {
  await requireArea('hosts');
  const { id } = await params;
  const host = await hostOr404(id);
  const hooks = await getHostWebhooks(host.id);
  const now = new Date().toISOString();
  return (
    <>
      <Breadcrumb
        trail={[
          { label: 'Hosts', href: '/hosts' },
          { label: host.name, href: `/hosts/${host.id}` },
          { label: 'Webhooks' },
        ]}
      />
      <PageHeader
        title="Webhooks"
        description="Callbacks receive each resolution, signed (Standard Webhooks) and retried; a resolver is consulted before reviewers."
        actions={
          <Link
            href={`/hosts/${host.id}/webhooks/deliveries`}
            className="text-sm text-indigo-700 hover:underline"
          >
            Delivery log →
          </Link>
        }
      />
      <WebhookAlerts hostId={host.id} />
      <div className="grid items-start gap-6 lg:grid-cols-2">
        <Card title="Callback">
          <p className="mb-3 text-sm text-slate-600">
            When a ticket is decided or expires, its ApprovalResolution, ticket id, request id and
            context identity are POSTed here.
          </p>
          <HookPanel hostId={host.id} kind="callback" hook={hooks.callback} now={now} />
        </Card>
        <Card title="Resolver">
          <p className="mb-3 text-sm text-slate-600">
            New tickets are first POSTed here as a signed ApprovalRequest; an approve or reject
            decides the ticket, anything else leaves it to reviewers.
          </p>
          <HookPanel hostId={host.id} kind="resolver" hook={hooks.resolver} now={now} />
        </Card>
      </div>
    </>
  );
}

function HookPanel({
  hostId,
  kind,
  hook,
  now,
}: {
  hostId: string;
  kind: 'callback' | 'resolver';
  hook: WebhookView | null;
  now: string;
}) {
  return (
    <div className="space-y-4" data-testid={`${kind}-panel`}>
      {/* Always one element here, so that registering (which adds the details)
          does not shift the form below and remount it, losing the secret it shows once. */}
      {!hook ? (
        <div hidden />
      ) : (
        <dl className="grid grid-cols-[8rem_1fr] gap-y-1 text-sm">
          <dt className="text-slate-500">Status</dt>
          <dd data-testid={`${kind}-status`}>
            {hook.enabled ? (
              <span className="text-emerald-700">Enabled</span>
            ) : (
              <span className="text-red-700">
                Disabled{hook.disabledReason ? ` (${hook.disabledReason})` : ''}
              </span>
            )}
          </dd>
          <dt className="text-slate-500">Failure streak</dt>
          <dd>{hook.consecutiveFailures}</dd>
          <dt className="text-slate-500">Secrets</dt>
          <dd>
            <ul>
              {hook.secrets.map((s) => (
                <li key={s.id} className="text-xs text-slate-600">
                  created <Time value={s.createdAt.toISOString()} now={now} />
                  {s.expiresAt && (
                    <>
                      , stops <Time value={s.expiresAt.toISOString()} now={now} />
                    </>
                  )}
                </li>
              ))}
            </ul>
          </dd>
        </dl>
      )}
      <WebhookForm
        hostId={hostId}
        kind={kind}
        url={hook?.url}
        timeoutMs={hook?.timeoutMs}
        maxTimeoutMs={TIMEOUT_LIMITS[kind][1]}
        urlRule={describeUrlRule(guardOptionsFromConfig())}
      />
      {hook && kind === 'resolver' && (
        <div className="space-y-2">
          <SelfTestResultView result={hook.selfTest} now={now} />
          <SelfTestButton hostId={hostId} />
        </div>
      )}
      {hook && (
        <div className="flex flex-wrap items-center gap-3 border-t border-slate-100 pt-3">
          <RotateSecretForm hostId={hostId} kind={kind} />
          <EnableButton hostId={hostId} kind={kind} enabled={hook.enabled} />
          <DeleteButton hostId={hostId} kind={kind} />
        </div>
      )}
    </div>
  );
}
