-- Issue 13 item 4: the background log verifier's runs, witnesses of the
-- signed tree heads (and what each was sent), and leaves whose row the
-- retention policy deleted (marked in the deleting transaction).

-- AlterTable
ALTER TABLE "LogLeaf" ADD COLUMN "prunedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "LogVerification" (
    "id" UUID NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3) NOT NULL,
    "ok" BOOLEAN NOT NULL,
    "trigger" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "checkedLeaves" BIGINT NOT NULL,
    "firstFailure" JSONB,
    "findings" JSONB NOT NULL,
    "findingCount" INTEGER NOT NULL,
    "failureCount" INTEGER NOT NULL,

    CONSTRAINT "LogVerification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Witness" (
    "id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdById" UUID,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastError" TEXT,
    "lastAttemptAt" TIMESTAMP(3),
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "Witness_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WitnessHead" (
    "witnessId" UUID NOT NULL,
    "size" BIGINT NOT NULL,
    "rootHash" TEXT NOT NULL,
    "jws" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "acknowledgedAt" TIMESTAMP(3),

    CONSTRAINT "WitnessHead_pkey" PRIMARY KEY ("witnessId","size")
);

-- CreateIndex
CREATE INDEX "LogVerification_startedAt_idx" ON "LogVerification"("startedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Witness_url_key" ON "Witness"("url");

-- CreateIndex
CREATE INDEX "WitnessHead_acknowledgedAt_idx" ON "WitnessHead"("acknowledgedAt");

-- AddForeignKey
ALTER TABLE "WitnessHead" ADD CONSTRAINT "WitnessHead_witnessId_fkey" FOREIGN KEY ("witnessId") REFERENCES "Witness"("id") ON DELETE CASCADE ON UPDATE CASCADE;
