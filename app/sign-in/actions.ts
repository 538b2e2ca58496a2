'use server';

import { AuthError } from 'next-auth';
import { SignInRefused, signIn, signOut } from '@/lib/server/auth/auth';
import type { FormState } from '@/app/components/form-state';
import { safeNextPath } from '@/lib/server/auth/redirects';
import { signInMessage } from './messages';

/** Email + password sign-in; redirects to `next` (a local path) on success. */
export async function signInWithPassword(_prev: FormState, form: FormData): Promise<FormState> {
  const email = String(form.get('email') ?? '').trim();
  const password = String(form.get('password') ?? '');
  const next = safeNextPath(form.get('next'));
  if (!email || !password) {
    return {
      status: 'error',
      code: 'missing_fields',
      message: signInMessage('missing_fields'),
      values: { email },
    };
  }
  try {
    // A relative redirectTo: Auth.js would otherwise build an absolute URL
    // from its own idea of the host (`localhost` when the browser used
    // 127.0.0.1), and the session cookie set for one would go missing.
    await signIn('credentials', { email, password, redirectTo: next });
  } catch (err) {
    if (err instanceof SignInRefused) {
      return {
        status: 'error',
        code: err.code,
        message: signInMessage(err.code, err.retryAfterSeconds),
        values: { email },
      };
    }
    if (err instanceof AuthError) {
      return {
        status: 'error',
        code: 'sign_in_failed',
        message: signInMessage(''),
        values: { email },
      };
    }
    throw err; // Next's redirect on success
  }
  return { status: 'ok' };
}

/** Starts the SSO flow with the OIDC provider. */
export async function signInWithSso(form: FormData): Promise<void> {
  await signIn('oidc', { redirectTo: safeNextPath(form.get('next')) });
}

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: '/sign-in' });
}
