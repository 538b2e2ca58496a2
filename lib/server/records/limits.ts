import 'server-only';

/** Ingest bounds (issue 7): a request carries at most this many records… */
export const MAX_RECORDS_PER_REQUEST = 10_000;
/** …in at most this many bytes of body. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** §10.3: message and warnings[].message are cut to this many UTF-8 bytes, ellipsis included. */
export const MAX_MESSAGE_BYTES = 256;
/** The columns are 32-bit integers; larger sequences are refused, not truncated. */
export const MAX_COLUMN_INT = 2_147_483_647;
