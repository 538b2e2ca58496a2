import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { Card, PageHeader } from '@/app/components/page-header';
import { RoleBadges, StatusBadge } from '@/app/components/role-badges';
import { Table, Td, Th } from '@/app/components/table';
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
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link href="/users" className="text-indigo-700 hover:underline">
          Users
        </Link>
        <span className="text-slate-400"> / </span>
        <span className="text-slate-600">{user.email}</span>
      </nav>
      <PageHeader
        title={user.name ?? user.email}
        description={
          <span className="inline-flex flex-wrap items-center gap-2">
            {user.email} <RoleBadges roles={user.roles} /> <StatusBadge disabled={user.disabled} />
          </span>
        }
      />
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
      <h2 className="mb-2 mt-8 text-sm font-semibold text-slate-800">Recent changes</h2>
      {events.length === 0 ? (
        <p className="text-sm text-slate-500">No changes recorded for this user.</p>
      ) : (
        <Table caption={`Recent changes to ${user.email}`}>
          <thead>
            <tr>
              <Th>When</Th>
              <Th>Change</Th>
              <Th>By</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {events.map((e) => (
              <tr key={e.id}>
                <Td className="whitespace-nowrap">
                  <Time value={e.createdAt.toISOString()} now={now} />
                </Td>
                <Td>
                  <code className="text-xs">{e.action}</code>
                </Td>
                <Td>{e.actorEmail ?? e.actorKind}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </>
  );
}
