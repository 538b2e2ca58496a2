-- Record seals (issue 13 item 3): ingest stores, with every record row, an
-- HMAC over the row's identity under a key derived from APP_ENCRYPTION_KEY,
-- which the database does not hold; the log appender refuses rows without a
-- valid one. Rows stored before this migration have none: the highest id at
-- this moment is recorded, and only rows at or below it may go unsealed.

-- AlterTable
ALTER TABLE "InterceptionRecord" ADD COLUMN "seal" TEXT;

-- CreateTable
CREATE TABLE "RecordSealWatermark" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "maxId" BIGINT NOT NULL,
    "seal" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RecordSealWatermark_pkey" PRIMARY KEY ("id")
);

-- The seal of the watermark itself is written by the appender on first use
-- (SQL holds no key).
INSERT INTO "RecordSealWatermark" ("id", "maxId")
SELECT 1, COALESCE(max("id"), 0) FROM "InterceptionRecord";
