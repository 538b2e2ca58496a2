import type { ReactNode } from 'react';
import { Role } from '@/lib/server/auth/roles';
import { requireUser } from '@/lib/server/auth/session';

/**
 * The role check of every /approvals page, above the loading boundaries,
 * so that it runs before anything streams: a real redirect to /forbidden,
 * not a 200 whose body redirects. Auditors read tickets too (read-only).
 * The queue's loading state lives in the (queue) group, so that it does not
 * wrap the ticket page, whose layout checks the ticket exists first.
 */
export default async function ApprovalsLayout({ children }: { children: ReactNode }) {
  await requireUser(Role.admin, Role.reviewer, Role.auditor);
  return children;
}
