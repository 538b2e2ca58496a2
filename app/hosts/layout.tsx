import type { ReactNode } from 'react';
import { requireArea } from '@/lib/server/auth/session';

/**
 * The role check of every /hosts page, before anything streams (a real
 * redirect to /forbidden, not a 200). No loading.tsx in this area: an
 * unknown /hosts/<id> must answer 404, which a page can only do while
 * nothing has streamed yet.
 */
export default async function HostsLayout({ children }: { children: ReactNode }) {
  await requireArea('hosts');
  return children;
}
