import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { buttonClass } from '@/app/components/button-class';
import { Logo } from '@/app/components/logo';
import { safeNextPath } from '@/lib/server/auth/redirects';
import { getActiveSession, orNull, PASSWORD_CHANGE_PATH } from '@/lib/server/auth/session';
import { config } from '@/lib/server/config';
import { signInWithSso } from './actions';
import { signInMessage } from './messages';
import { SignInForm } from './sign-in-form';

export const metadata: Metadata = { title: 'Sign in' };

type Search = Promise<Record<string, string | string[] | undefined>>;

export default async function SignInPage({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const next = safeNextPath(typeof params.next === 'string' ? params.next : undefined);
  const active = await getActiveSession().catch(orNull);
  if (active) redirect(active.mustChangePassword ? PASSWORD_CHANGE_PATH : next);

  const cfg = config();
  const ssoName = cfg.OIDC_ISSUER ? cfg.OIDC_NAME : null;
  const error = typeof params.error === 'string' ? signInMessage(params.error) : undefined;

  return (
    <div className="mx-auto mt-16 max-w-sm">
      <div className="mb-6 flex flex-col items-center gap-3 text-center">
        <Logo className="size-10" />
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Sign in to Checkpoint</h1>
          <p className="mt-1 text-sm text-slate-600">
            Review and audit what your agents want to do.
          </p>
        </div>
      </div>
      <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <SignInForm next={next} initialError={error} />
        {ssoName && (
          <>
            <div className="my-4 flex items-center gap-3 text-xs text-slate-500">
              <span className="h-px flex-1 bg-slate-200" /> or{' '}
              <span className="h-px flex-1 bg-slate-200" />
            </div>
            <form action={signInWithSso}>
              <input type="hidden" name="next" value={next} />
              <button type="submit" className={buttonClass('secondary', 'w-full')}>
                Continue with {ssoName}
              </button>
            </form>
          </>
        )}
      </div>
      <p className="mt-4 text-center text-xs text-slate-500">
        No account? Ask an admin of this Checkpoint to add you.
      </p>
    </div>
  );
}
