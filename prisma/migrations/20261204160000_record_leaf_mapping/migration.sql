-- The transparency log appender no longer writes InterceptionRecord."logIndex"
-- (a non-HOT update of every record, as costly as its insert): which leaf logs
-- a record is LogLeaf's (kind, "refId") alone, already written for every
-- logged record. The appender finds records not logged yet from a cursor
-- (LogRecordCursor) instead of the partial index on the column.

-- CreateTable
CREATE TABLE "LogRecordCursor" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "lowId" BIGINT NOT NULL,
    "passes" JSONB NOT NULL DEFAULT '[]',
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LogRecordCursor_pkey" PRIMARY KEY ("id")
);

-- Every record below the oldest one still waiting (not logged, not refused) is
-- settled; with none waiting, every record is.
INSERT INTO "LogRecordCursor" ("id", "lowId")
SELECT 1, COALESCE(
  (SELECT min(r.id) - 1 FROM "InterceptionRecord" r
   WHERE r."logIndex" IS NULL
     AND NOT EXISTS (SELECT 1 FROM "LogRefusal" f WHERE f.kind = 'record' AND f."refId" = r.id::text)),
  (SELECT max(id) FROM "InterceptionRecord"),
  0);

-- DropIndex
DROP INDEX "InterceptionRecord_unlogged_idx";

-- DropIndex
DROP INDEX "InterceptionRecord_logIndex_key";

-- AlterTable
ALTER TABLE "InterceptionRecord" DROP COLUMN "logIndex";
