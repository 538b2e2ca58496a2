import type { ReactNode } from 'react';
import { requireArea } from '@/lib/server/auth/session';

/**
 * The role check of every /users page, in a layout: it runs before the
 * first byte is sent, so a user without the role gets a real redirect to
 * /forbidden rather than a 200 whose body redirects. No loading.tsx in this
 * area for the same reason: an unknown /users/<id> must answer 404, which a
 * page can only do while nothing has streamed yet.
 */
export default async function UsersLayout({ children }: { children: ReactNode }) {
  await requireArea('users');
  return children;
}
