-- The appender's guard (issue 13 item 3): a stored record or decision that
-- cannot have come through ingest or a decision (its chain link, its place in
-- its session's chain, its time, its receipt) is not logged; the refusal and
-- its reason are kept here, once per row, and the row keeps "logIndex" NULL.

-- CreateTable
CREATE TABLE "LogRefusal" (
    "kind" TEXT NOT NULL,
    "refId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "refusedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LogRefusal_pkey" PRIMARY KEY ("kind","refId")
);

-- The appender now takes the record backlog in id order (a session's chain
-- order), so that a record's predecessor is always logged or in the same batch.
DROP INDEX "InterceptionRecord_unlogged_idx";
CREATE INDEX "InterceptionRecord_unlogged_idx" ON "InterceptionRecord"("id") WHERE ("logIndex" IS NULL);
