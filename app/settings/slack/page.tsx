import type { Metadata } from 'next';
import { Card, PageHeader } from '@/app/components/page-header';
import { requireUser } from '@/lib/server/auth/session';
import { config } from '@/lib/server/config';
import { db } from '@/lib/server/db';
import {
  listHostSlackSettings,
  maskWebhookUrl,
  readGlobalSlackSettings,
  resolveDestination,
  type SlackDestination,
} from '@/lib/server/slack/settings';
import { listSlackLinks } from '@/lib/server/slack/link-admin';
import { readSlackTeam } from '@/lib/server/slack/team';
import { appUrl } from '@/lib/server/slack/ticket-view';
import { SlackTargetForm } from './slack-form';
import { SlackLinks } from './slack-links';
import { SlackTeamForm } from './team-form';

export const metadata: Metadata = { title: 'Slack' };

function Where({ d }: { d: SlackDestination | null }) {
  if (!d) return <span className="text-slate-500">Not posted to Slack</span>;
  if (d.kind === 'bot')
    return (
      <span>
        Channel <code className="font-mono">{d.channel}</code>, with buttons
      </span>
    );
  return <span>Incoming webhook {maskWebhookUrl(d.url)}, no buttons</span>;
}

function Status({ ok, children }: { ok: boolean; children: React.ReactNode }) {
  return (
    <li className="flex items-start gap-2">
      <span aria-hidden className={ok ? 'text-emerald-600' : 'text-amber-600'}>
        {ok ? '●' : '○'}
      </span>
      <span>{children}</span>
    </li>
  );
}

/** Admin-only: where new tickets are posted in Slack, globally and per host. */
export default async function SlackSettingsPage() {
  await requireUser('admin');
  const cfg = config();
  const prisma = await db();
  const [global, hosts, team, links] = await Promise.all([
    readGlobalSlackSettings(prisma),
    listHostSlackSettings(prisma),
    readSlackTeam(prisma),
    listSlackLinks(prisma),
  ]);
  const now = new Date().toISOString();
  const globalDest = resolveDestination({ slackChannel: null, slackWebhookUrl: null }, global);
  return (
    <>
      <PageHeader
        title="Slack"
        description="New approval tickets are posted to Slack with a link to the ticket; reviewers who linked their Slack user on their profile can approve or reject from the message."
      />
      <div className="grid items-start gap-6 lg:grid-cols-[1fr_24rem]">
        <div className="space-y-6">
          <Card title="Default destination">
            <p className="mb-3 text-sm text-slate-600">
              Used for every host without its own setting. Now: <Where d={globalDest} />.
            </p>
            <SlackTargetForm
              label="Default Slack destination"
              channel={global.channel}
              webhookUrlMasked={global.webhookUrl ? maskWebhookUrl(global.webhookUrl) : null}
            />
          </Card>
          <Card title="Per host">
            <ul className="divide-y divide-slate-100">
              {hosts.map((h) => (
                <li key={h.id} className="py-4 first:pt-0 last:pb-0">
                  <div className="mb-2 flex flex-wrap items-baseline justify-between gap-2">
                    <h3 className="text-sm font-semibold text-slate-900">{h.name}</h3>
                    <span className="text-xs text-slate-600">
                      <Where d={h.destination} />
                      {!h.slackChannel && !h.webhookUrlMasked && h.destination && ' (default)'}
                    </span>
                  </div>
                  <SlackTargetForm
                    hostId={h.id}
                    label={`Slack destination for ${h.name}`}
                    channel={h.slackChannel}
                    webhookUrlMasked={h.webhookUrlMasked}
                  />
                </li>
              ))}
            </ul>
          </Card>
          <Card title="Linked Slack accounts">
            <p className="mb-3 text-sm text-slate-600">
              A link counts once the Slack member pressed &ldquo;This is me&rdquo; in the
              bot&rsquo;s direct message. Revoking removes a user&rsquo;s link and any pending
              request.
            </p>
            <SlackLinks
              now={now}
              items={links.map((l) => ({
                userId: l.userId,
                who: l.name ? `${l.name} (${l.email})` : l.email,
                slackUserId: l.slackUserId,
                state: l.state,
                verifiedAt: l.verifiedAt?.toISOString() ?? null,
                expiresAt: l.expiresAt?.toISOString() ?? null,
              }))}
            />
          </Card>
        </div>
        <Card title="Connection">
          <ul className="space-y-2 text-sm text-slate-700">
            <Status ok={Boolean(cfg.SLACK_BOT_TOKEN)}>
              Bot token (<code className="font-mono">SLACK_BOT_TOKEN</code>){' '}
              {cfg.SLACK_BOT_TOKEN
                ? 'set'
                : 'not set: channels are ignored, only incoming webhooks post'}
            </Status>
            <Status ok={Boolean(cfg.SLACK_SIGNING_SECRET)}>
              Signing secret (<code className="font-mono">SLACK_SIGNING_SECRET</code>){' '}
              {cfg.SLACK_SIGNING_SECRET ? 'set' : 'not set: every button press is refused'}
            </Status>
          </ul>
          <div className="mt-4">
            <SlackTeamForm teamId={team?.teamId ?? null} />
            <p className="mt-1 text-xs text-slate-500" data-testid="slack-team-source">
              {team
                ? team.source === 'admin'
                  ? 'Set by an admin.'
                  : 'Learned from the bot token (auth.test).'
                : 'Not known yet: every button press is refused until it is (set here, or learned from the bot token).'}
            </p>
          </div>
          <p className="mt-4 text-sm text-slate-600">
            In the Slack app, set <em>Interactivity → Request URL</em> to
          </p>
          <code className="mt-1 block break-all rounded bg-slate-100 px-2 py-1 font-mono text-xs">
            {appUrl()}/api/slack/interactions
          </code>
          <p className="mt-4 text-xs text-slate-500">
            Secrets come from the environment and are never stored in the database. Messages carry
            the redacted context only; edits happen on the ticket page.
          </p>
        </Card>
      </div>
    </>
  );
}
