-- AlterTable
ALTER TABLE "OutboxEvent" ADD COLUMN     "settledAt" TIMESTAMP(3);

-- Rows relayed before this migration are taken as done: their jobs ran long
-- ago or are still in Redis, and re-sending them all on upgrade would not help.
UPDATE "OutboxEvent" SET "settledAt" = "dispatchedAt" WHERE "dispatchedAt" IS NOT NULL;

-- CreateIndex
CREATE INDEX "OutboxEvent_settledAt_dispatchedAt_idx" ON "OutboxEvent"("settledAt", "dispatchedAt");
