import { route } from '@/lib/server/http/route';
import { receiveRecords } from '@/lib/server/records/receive';

/**
 * Remote hosts send InterceptionRecords: a JSON array or NDJSON, up to
 * 10,000 records or 5 MiB. 200 `{accepted, duplicates}` only after commit;
 * 400 records_invalid / 409 record_conflict store nothing.
 */
export const POST = route({ auth: 'host' }, ({ req, host }) => receiveRecords(req, host));
