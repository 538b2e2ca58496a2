import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { Card, PageHeader } from '@/app/components/page-header';
import { signOutAction } from '@/app/sign-in/actions';
import { PASSWORD_MIN_LENGTH } from '@/lib/server/auth/password';
import { requireSignedIn } from '@/lib/server/auth/session';
import { ReplacePasswordForm } from './replace-password-form';

export const metadata: Metadata = { title: 'Choose a new password' };

/**
 * Where every page sends a session that signed in with a generated or
 * admin-set password, until the user replaces it. Without a pending change
 * the Profile page is where passwords change.
 */
export default async function ReplacePasswordPage() {
  const { user, mustChangePassword } = await requireSignedIn();
  if (!mustChangePassword) redirect('/profile');
  return (
    <div className="mx-auto mt-10 max-w-md">
      <PageHeader
        title="Choose a new password"
        description={`You signed in as ${user.email} with a password someone else set or a generated one. Choose your own to go on.`}
      />
      <Card>
        <ReplacePasswordForm minPassword={PASSWORD_MIN_LENGTH} />
      </Card>
      <form action={signOutAction} className="mt-4 text-center">
        <button type="submit" className="text-sm text-slate-600 underline hover:text-slate-900">
          Sign out
        </button>
      </form>
    </div>
  );
}
