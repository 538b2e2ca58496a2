import Link from 'next/link';
import { PageHeader } from '@/app/components/page-header';
import { RoleBadges } from '@/app/components/role-badges';
import { ADMIN_SETTINGS, placesFor } from '@/lib/server/auth/roles';
import { requireUser } from '@/lib/server/auth/session';

const TEXT: Record<string, string> = {
  '/approvals': 'Decide what your agents asked to do.',
  '/audit': 'Search, verify and export what happened.',
  '/hosts': 'The agent hosts, their API keys and webhooks.',
  '/users': 'Who can sign in, and with which roles.',
  ...Object.fromEntries(ADMIN_SETTINGS.map((s) => [s.href, s.text])),
};

/**
 * The start page: every page this user's roles may open (the same list as
 * the navigation, so nothing is missing and nothing leads to a refusal),
 * then their profile and the status page.
 */
export default async function HomePage() {
  const user = await requireUser();
  const links = [
    ...placesFor(user.roles).map((p) => ({ ...p, text: TEXT[p.href] ?? '' })),
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
