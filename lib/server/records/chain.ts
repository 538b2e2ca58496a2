import 'server-only';
import { sha256Hex } from './validate-record';

/**
 * A record's link in its session's hash chain: SHA-256 (hex) over the
 * previous link ('' for the first record of a session) followed by the
 * record's RFC 8785 canonical JSON (§10.2). Editing, removing or reordering
 * a stored record breaks every later link.
 */
export function chainHashOf(prevHash: string | null, canonical: string): string {
  return sha256Hex((prevHash ?? '') + canonical);
}
