-- AlterTable: the exact canonical text of the stored context (what its identity covers).
ALTER TABLE "ApprovalTicket" ADD COLUMN "contextJson" TEXT;

-- Rows written before: their jsonb is all that is left of what was shown.
UPDATE "ApprovalTicket" SET "contextJson" = "context"::text WHERE "contextJson" IS NULL;
