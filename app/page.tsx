import Link from 'next/link';
import { PageHeader } from '@/app/components/page-header';
import { RoleBadges } from '@/app/components/role-badges';
import { AREAS, type Area, areasFor } from '@/lib/server/auth/roles';
import { requireUser } from '@/lib/server/auth/session';

/** Areas whose pages exist; each later issue adds its own when it lands. */
const BUILT: readonly Area[] = ['approvals', 'users'];

const AREA_TEXT: Record<Area, string> = {
  approvals: 'Decide what your agents asked to do.',
  audit: 'Search, verify and export what happened.',
  hosts: 'The agent hosts, their API keys and webhooks.',
  users: 'Who can sign in, and with which roles.',
};

/**
 * The start page: the areas this user may use. (Once every area has its
 * page, this can send each role straight to its first area.)
 */
export default async function HomePage() {
  const user = await requireUser();
  const areas = areasFor(user.roles).filter((a) => BUILT.includes(a));
  const links = [
    ...areas.map((a) => ({ href: AREAS[a].path, label: AREAS[a].label, text: AREA_TEXT[a] })),
    { href: '/profile', label: 'Profile', text: 'Your password and Slack link.' },
    { href: '/status', label: 'Status', text: 'Database, queue and worker health.' },
  ];
  return (
    <>
      <PageHeader
        title={`Welcome${user.name ? `, ${user.name}` : ''}`}
        description={
          <>
            Signed in as {user.email} · <RoleBadges roles={user.roles} />
          </>
        }
      />
      {user.roles.length === 0 && (
        <p className="mb-4 rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          Your account has no roles yet. Ask an admin to give you the reviewer or auditor role.
        </p>
      )}
      <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
        {links.map((l) => (
          <li key={l.href}>
            <Link
              href={l.href}
              className="block h-full rounded-lg border border-slate-200 bg-white p-4 shadow-sm hover:border-indigo-300 hover:shadow"
            >
              <span className="text-sm font-semibold text-slate-900">{l.label}</span>
              <span className="mt-1 block text-sm text-slate-600">{l.text}</span>
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}
