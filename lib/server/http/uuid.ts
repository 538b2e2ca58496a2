import 'server-only';

/**
 * Any 8-4-4-4-12 hex id, either case. Ids from URLs, forms and cookies are
 * checked with it before they reach a `uuid` column, where a malformed one
 * would be a query error instead of "not found". Lenient on purpose: the
 * version and variant nibbles are not checked (unlike `z.uuid()`), so the
 * nil UUID and ids minted elsewhere pass.
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** The id itself, or the nil UUID, which a query can take and which matches no row. */
export function uuidOrNil(value: string): string {
  return isUuid(value) ? value : NIL_UUID;
}
