/*
  Warnings:

  - A unique constraint covering the columns `[hostId,sessionId,sequence,dedupeKey]` on the table `InterceptionRecord` will be added. If there are existing duplicate values, this will fail.
  - Added the required column `contentHash` to the `InterceptionRecord` table without a default value. This is not possible if the table is not empty.

*/
-- DropIndex
DROP INDEX "InterceptionRecord_hostId_sessionId_sequence_key";

-- AlterTable
ALTER TABLE "InterceptionRecord" ADD COLUMN     "contentHash" TEXT NOT NULL,
ADD COLUMN     "dedupeKey" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "hostFailure" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE UNIQUE INDEX "InterceptionRecord_hostId_sessionId_sequence_dedupeKey_key" ON "InterceptionRecord"("hostId", "sessionId", "sequence", "dedupeKey");
