/**
 * Child process for records-atomicity.test.ts: ingests one batch of
 * `count` records into session `session` of `hostId`, then exits. The
 * test kills it mid-transaction.
 */
import { closeDb } from '@/lib/server/db';
import { ingestRecords } from '@/lib/server/records/ingest';
import { makeRecord } from './records-fixtures';

const [hostId, session, count] = process.argv.slice(2);
const batch = Array.from({ length: Number(count) }, (_, i) => makeRecord(session, i));
process.stdout.write('started\n');
await ingestRecords(hostId, batch);
process.stdout.write('committed\n');
await closeDb();
