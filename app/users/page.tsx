import type { Metadata } from 'next';
import { ActionsTh, LastSeen, ManageLink } from '@/app/components/admin-list';
import { Card, PageHeader } from '@/app/components/page-header';
import { RoleBadges, StatusBadge } from '@/app/components/role-badges';
import { EmptyState } from '@/app/components/states';
import { Table, Td, Th } from '@/app/components/table';
import { PASSWORD_MIN_LENGTH } from '@/lib/server/auth/password';
import { ROLE_DESCRIPTIONS, ROLES } from '@/lib/server/auth/roles';
import { requireArea } from '@/lib/server/auth/session';
import { listUsers } from '@/lib/server/users';
import { CreateUserForm } from './create-user-form';

export const metadata: Metadata = { title: 'Users' };

export default async function UsersPage() {
  const actor = await requireArea('users');
  const users = await listUsers(actor);
  const now = new Date().toISOString();
  const roleOptions = ROLES.map((r) => ({ value: r, description: ROLE_DESCRIPTIONS[r] }));
  return (
    <>
      <PageHeader
        title="Users"
        description="Who can sign in, and what they may do. Changes take effect on the user's next request."
      />
      <div className="grid items-start gap-6 lg:grid-cols-[1fr_20rem]">
        {users.length === 0 ? (
          <EmptyState title="No users yet" />
        ) : (
          <Table caption="Users">
            <thead>
              <tr>
                <Th>User</Th>
                <Th>Roles</Th>
                <Th>Status</Th>
                <Th>Last sign-in</Th>
                <ActionsTh />
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {users.map((u) => (
                <tr key={u.id} className={u.disabled ? 'text-slate-500' : undefined}>
                  <Td>
                    <div className="font-medium text-slate-900">
                      {u.email}
                      {u.id === actor.id && (
                        <span className="ml-1.5 text-xs font-normal text-slate-500">(you)</span>
                      )}
                    </div>
                    {u.name && <div className="text-xs text-slate-500">{u.name}</div>}
                  </Td>
                  <Td>
                    <RoleBadges roles={u.roles} />
                  </Td>
                  <Td>
                    <StatusBadge disabled={u.disabled} />
                  </Td>
                  <Td className="whitespace-nowrap">
                    <LastSeen value={u.lastSignInAt} now={now} />
                  </Td>
                  <Td className="text-right">
                    <ManageLink href={`/users/${u.id}`} name={u.email} />
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
        <Card title="Add a user">
          <CreateUserForm roles={roleOptions} minPassword={PASSWORD_MIN_LENGTH} />
        </Card>
      </div>
    </>
  );
}
