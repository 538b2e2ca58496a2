import type { Metadata } from 'next';
import Link from 'next/link';
import { buttonClass } from '@/app/components/button-class';
import { requireUser } from '@/lib/server/auth/session';

export const metadata: Metadata = { title: "You don't have access" };

/** Where role guards send a signed-in user who may not use a page. */
export default async function ForbiddenPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await requireUser();
  const { from } = await searchParams;
  return (
    <div className="mx-auto mt-16 max-w-md text-center" data-testid="forbidden">
      <p className="text-sm font-semibold text-slate-500">403</p>
      <h1 className="mt-1 text-xl font-semibold tracking-tight">You don&apos;t have access</h1>
      <p className="mt-2 text-sm text-slate-600">
        {typeof from === 'string' && from.startsWith('/') ? (
          <>
            <code className="rounded bg-slate-100 px-1 py-0.5 text-xs">{from.split('?')[0]}</code>{' '}
            needs a role you don&apos;t have.
          </>
        ) : (
          'This page needs a role you don’t have.'
        )}{' '}
        You are signed in as {user.email}
        {user.roles.length ? ` (${user.roles.join(', ')})` : ' with no roles'}. An admin can change
        your roles.
      </p>
      <Link href="/" className={buttonClass('secondary', 'mt-6')}>
        Go to the start page
      </Link>
    </div>
  );
}
