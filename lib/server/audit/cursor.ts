import 'server-only';
import { invalidRequest } from '@/lib/server/http/api-error';

/**
 * Keyset cursor over (receivedAt, id): the position after the last row
 * shown. `id` breaks ties between records received in the same
 * millisecond, so no row is skipped or repeated across pages.
 */
export type Cursor = { receivedAt: string; id: string };

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.receivedAt}|${c.id}`, 'utf8').toString('base64url');
}

/** A cursor that was not made by encodeCursor is a 400 `cursor_invalid`. */
export function decodeCursor(raw: string): Cursor {
  const text = /^[A-Za-z0-9_-]{1,80}$/.test(raw)
    ? Buffer.from(raw, 'base64url').toString('utf8')
    : '';
  const [receivedAt, id, extra] = text.split('|');
  if (
    extra !== undefined ||
    !receivedAt ||
    !ISO_MS.test(receivedAt) ||
    !/^\d{1,19}$/.test(id ?? '')
  ) {
    throw invalidRequest(
      'The page cursor is not valid; start the search again.',
      undefined,
      'cursor_invalid',
    );
  }
  return { receivedAt, id: id as string };
}
