import type { Metadata } from 'next';
import { Card, PageHeader } from '@/app/components/page-header';
import { RoleBadges } from '@/app/components/role-badges';
import { Time } from '@/app/components/time';
import { PASSWORD_MIN_LENGTH } from '@/lib/server/auth/password';
import { requireUser } from '@/lib/server/auth/session';
import { db } from '@/lib/server/db';
import { ownSlackLink } from '@/lib/server/slack/link-admin';
import { getOwnProfile } from '@/lib/server/users';
import { ChangePasswordForm } from './profile-forms';
import { SessionsCard } from './sessions-card';
import { SlackLink } from './slack-link';

export const metadata: Metadata = { title: 'Profile' };

export default async function ProfilePage() {
  const actor = await requireUser();
  const me = await getOwnProfile(actor);
  const slack = await ownSlackLink(await db(), actor.id);
  const now = new Date().toISOString();
  return (
    <>
      <PageHeader title="Profile" description="Your account, your password and your Slack link." />
      <dl className="mb-6 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-[10rem_1fr]">
        <dt className="text-slate-500">Email</dt>
        <dd>{me.email}</dd>
        <dt className="text-slate-500">Name</dt>
        <dd>{me.name ?? <span className="text-slate-400">not set</span>}</dd>
        <dt className="text-slate-500">Roles</dt>
        <dd>
          <RoleBadges roles={me.roles} />
        </dd>
        <dt className="text-slate-500">Single sign-on</dt>
        <dd>{me.ssoLinked ? 'linked' : 'not linked'}</dd>
        <dt className="text-slate-500">Last sign-in</dt>
        <dd>
          {me.lastSignInAt ? <Time value={me.lastSignInAt.toISOString()} now={now} /> : 'never'}
        </dd>
      </dl>
      <div className="grid items-start gap-6 lg:grid-cols-2">
        <Card title={me.hasPassword ? 'Change password' : 'Set a password'}>
          <ChangePasswordForm hasPassword={me.hasPassword} minPassword={PASSWORD_MIN_LENGTH} />
        </Card>
        <SessionsCard />
        <Card title="Slack">
          <p className="mb-3 text-sm text-slate-600">
            Link your Slack account so that approve and reject buttons in Slack act as you.
          </p>
          <SlackLink
            now={now}
            link={{
              verified: slack.verified && {
                slackUserId: slack.verified.slackUserId,
                linkedAt: slack.verified.linkedAt?.toISOString() ?? null,
              },
              pending: slack.pending && {
                slackUserId: slack.pending.slackUserId,
                expiresAt: slack.pending.expiresAt.toISOString(),
                expired: slack.pending.expired,
              },
            }}
          />
        </Card>
      </div>
    </>
  );
}
