import { notFound } from 'next/navigation';
import { getHost } from '@/lib/server/hosts';
import { ApiError } from '@/lib/server/http/api-error';

/** The host a `/hosts/[id]/…` page is about; an unknown or malformed id renders the 404 page. */
export function hostOr404(id: string): ReturnType<typeof getHost> {
  return getHost(id).catch((err) => {
    if (err instanceof ApiError && err.status === 404) notFound();
    throw err;
  });
}
