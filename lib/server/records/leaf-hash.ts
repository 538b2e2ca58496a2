import 'server-only';
import { createHash } from 'node:crypto';
import { canonicalJson } from '@checkpoint/agent-hooks';
import { type RecordLeafSource, recordLeafObject } from '@/lib/verify/leaf-data';

/**
 * A record's transparency-log leaf hash, computed where its canonical JSON
 * is already at hand (ingest, the seed and bench writers: columns.ts), so
 * that the log appender never reads or canonicalises the record again
 * (issue 13, Performance). The bytes are `recordLeafHash`'s
 * (lib/verify/leaf-data.ts, the one definition) without canonicalising the
 * record a second time: RFC 8785 serialises a member's value on its own, so
 * the leaf's canonical JSON is the one of the leaf with `record: null` with
 * the record's canonical JSON put in that slot. The slot is found unescaped
 * only as the top-level member (a string value escapes its quotes).
 * tests/integration/transparency-log.test.ts compares it with
 * `recordLeafHash` of the stored row.
 */

const RECORD_SLOT = '"record":null';
const LEAF_PREFIX = Buffer.from([0]);

/** The leaf data text of a record whose canonical JSON is `canonical` (`r.record` is ignored). */
export function recordLeafText(r: RecordLeafSource, canonical: string): string {
  const shell = canonicalJson(recordLeafObject({ ...r, record: null }));
  const at = shell.indexOf(RECORD_SLOT);
  return `${shell.slice(0, at)}"record":${canonical}${shell.slice(at + RECORD_SLOT.length)}`;
}

/** RFC 9162 leaf hash, lowercase hex, of the record's leaf data. */
export function recordLeafHashHex(r: RecordLeafSource, canonical: string): string {
  return createHash('sha256')
    .update(LEAF_PREFIX)
    .update(recordLeafText(r, canonical), 'utf8')
    .digest('hex');
}
