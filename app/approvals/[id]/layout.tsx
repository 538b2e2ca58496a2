import { notFound } from 'next/navigation';
import type { ReactNode } from 'react';
import { getInboxTicket } from './ticket';

/**
 * Above the ticket's loading boundary: an unknown or malformed id answers
 * 404 while nothing has streamed yet (in the page it would come after the
 * loading state, as a 200).
 */
export default async function TicketLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ id: string }>;
}) {
  const { id } = await params;
  if (!(await getInboxTicket(id))) notFound();
  return children;
}
