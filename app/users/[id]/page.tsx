import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { ChangeHistory } from '@/app/components/change-history';
import { DetailHeader } from '@/app/components/detail-header';
import { Card } from '@/app/components/page-header';
import { RoleBadges, StatusBadge } from '@/app/components/role-badges';
import { Time } from '@/app/components/time';
import { PASSWORD_MIN_LENGTH } from '@/lib/server/auth/password';
import { ROLE_DESCRIPTIONS, ROLES } from '@/lib/server/auth/roles';
import { requireArea } from '@/lib/server/auth/session';
import { ApiError } from '@/lib/server/http/api-error';
import { getUser, listUserEvents } from '@/lib/server/users';
import { ResetPasswordForm, RolesForm, StatusForm } from './user-forms';

export const metadata: Metadata = { title: 'User' };

export default async function UserPage({ params }: { params: Promise<{ id: string }> }) {
  const actor = await requireArea('users');
  const { id } = await params;
  const user = await getUser(actor, id).catch((err) => {
    if (err instanceof ApiError && err.status === 404) notFound();
    throw err;
  });
  const events = await listUserEvents(actor, user.id);
  const now = new Date().toISOString();
  const options = ROLES.map((r) => ({ value: r, description: ROLE_DESCRIPTIONS[r] }));
  return (
    <>
      <DetailHeader
        trail={[{ label: 'Users', href: '/users' }, { label: user.email }]}
        title={user.name ?? user.email}
      >
        {user.email} <RoleBadges roles={user.roles} /> <StatusBadge disabled={user.disabled} />
      </DetailHeader>
      <div className="grid items-start gap-6 lg:grid-cols-3">
        <Card title="Roles">
          <RolesForm userId={user.id} roles={user.roles} options={options} />
        </Card>
        <Card title="Account">
          <StatusForm userId={user.id} disabled={user.disabled} isSelf={user.id === actor.id} />
        </Card>
        <Card title="Password">
          <ResetPasswordForm userId={user.id} minPassword={PASSWORD_MIN_LENGTH} />
        </Card>
      </div>
      <dl className="mt-6 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-[10rem_1fr]">
        <dt className="text-slate-500">Last sign-in</dt>
        <dd>
          {user.lastSignInAt ? <Time value={user.lastSignInAt.toISOString()} now={now} /> : 'never'}
        </dd>
        <dt className="text-slate-500">Created</dt>
        <dd>
          <Time value={user.createdAt.toISOString()} now={now} />
        </dd>
        <dt className="text-slate-500">Single sign-on</dt>
        <dd>{user.ssoLinked ? 'linked' : 'not linked'}</dd>
        <dt className="text-slate-500">Slack</dt>
        <dd>{user.slackUserId ?? 'not linked'}</dd>
      </dl>
      <ChangeHistory
        subject={user.email}
        events={events}
        now={now}
        empty="No changes recorded for this user."
      />
    </>
  );
}
