-- DropIndex
DROP INDEX "SignInAttempt_ip_createdAt_idx";

-- AlterTable
ALTER TABLE "SignInAttempt" ADD COLUMN     "client" TEXT NOT NULL DEFAULT 'unknown';

-- CreateIndex
CREATE INDEX "SignInAttempt_email_client_createdAt_idx" ON "SignInAttempt"("email", "client", "createdAt");

-- CreateIndex
CREATE INDEX "SignInAttempt_client_createdAt_idx" ON "SignInAttempt"("client", "createdAt");
