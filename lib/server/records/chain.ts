import 'server-only';

/**
 * A record's link in its session's hash chain: SHA-256 (hex) over the
 * previous link ('' for the first record of a session) followed by the
 * record's RFC 8785 canonical JSON (§10.2). Editing, removing or reordering
 * a stored record breaks every later link. Defined in lib/verify (pure) so
 * the offline verifier recomputes links the same way.
 */
export { chainHashOf } from '@/lib/verify/record-columns';
