import type { ReactNode } from 'react';
import { requireSignedIn } from '@/lib/server/auth/session';

/**
 * The sign-in check of /profile above its loading boundary: a session
 * cookie of a disabled or deleted user gets a real redirect to sign-in
 * rather than a 200 whose body redirects. A pending forced password change
 * passes here (its page is /profile/password); the pages check it.
 */
export default async function ProfileLayout({ children }: { children: ReactNode }) {
  await requireSignedIn();
  return children;
}
