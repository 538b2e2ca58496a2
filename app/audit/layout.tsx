import type { ReactNode } from 'react';
import { requireArea } from '@/lib/server/auth/session';

/**
 * The role check of every /audit page, above the loading boundaries, so
 * that it runs before anything streams: a real redirect to /forbidden, not
 * a 200 whose body redirects. The search keeps its loading state in the
 * (search) group; the record and session pages have none, so that an
 * unknown id answers 404.
 */
export default async function AuditLayout({ children }: { children: ReactNode }) {
  await requireArea('audit');
  return children;
}
