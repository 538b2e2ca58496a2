import { cache } from 'react';
import { getInboxTicket as loadInboxTicket } from '@/lib/server/approvals/inbox';

/**
 * The ticket, loaded once per request: the layout checks it exists (so that
 * an unknown id answers 404 before the loading state streams), the page
 * renders the same result.
 */
export const getInboxTicket = cache(loadInboxTicket);
