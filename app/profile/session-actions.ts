'use server';

import { signOut } from '@/lib/server/auth/auth';
import { requireUser } from '@/lib/server/auth/session';
import { endOwnSessions } from '@/lib/server/users';

/** "Sign out everywhere": ends all of the user's sessions, this one too, then signs out here. */
export async function signOutEverywhereAction(): Promise<void> {
  const actor = await requireUser();
  await endOwnSessions(actor);
  await signOut({ redirectTo: '/sign-in' });
}
