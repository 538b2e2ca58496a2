import Link from 'next/link';
import { signOutAction } from '@/app/sign-in/actions';
import { placesFor } from '@/lib/server/auth/roles';
import type { SessionUser } from '@/lib/server/auth/session';
import { Logo } from './logo';
import { NavLinks } from './nav-links';
import { QueueBadge } from './queue-badge';

/** The top bar: product, the pages this user may open, queue health, the user. */
export function AppHeader({ user }: { user: SessionUser }) {
  const items = placesFor(user.roles);
  return (
    <header className="bg-slate-900 text-white">
      <div className="mx-auto flex min-h-12 max-w-7xl flex-wrap items-center gap-x-6 gap-y-1 px-4 py-1.5">
        <Link href="/" className="flex items-center gap-2 text-sm font-semibold tracking-tight">
          <Logo />
          Checkpoint
        </Link>
        <nav
          aria-label="Main"
          className="order-last w-full overflow-x-auto sm:order-none sm:w-auto sm:flex-1"
        >
          <NavLinks items={items} />
        </nav>
        <div className="ml-auto flex items-center gap-3">
          <QueueBadge />
          <Link
            href="/profile"
            className="max-w-56 truncate rounded-md px-2 py-1 text-sm text-slate-300 hover:bg-slate-800 hover:text-white"
            title="Your profile"
          >
            {user.name ?? user.email}
          </Link>
          <form action={signOutAction}>
            <button
              type="submit"
              className="rounded-md px-2 py-1 text-sm text-slate-300 hover:bg-slate-800 hover:text-white"
            >
              Sign out
            </button>
          </form>
        </div>
      </div>
    </header>
  );
}
