-- Record leaf hashes (issue 13 item 3): ingest computes each record's
-- transparency-log leaf hash (RFC 9162 leaf hash of its leaf data, hex)
-- where it already holds the record's canonical JSON, stores it here and
-- covers it with the row's seal (seal v2), so the log appender appends it
-- without reading or canonicalising the record again. Null on rows written
-- before this migration (sealed v1 or not at all): the appender checks those
-- as before.

-- AlterTable
ALTER TABLE "InterceptionRecord" ADD COLUMN "leafHash" TEXT;
