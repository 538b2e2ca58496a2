-- AlterTable
ALTER TABLE "User" ADD COLUMN     "slackLinkedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "SlackLinkRequest" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "slackUserId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SlackLinkRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "SlackLinkRequest_userId_key" ON "SlackLinkRequest"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "SlackLinkRequest_tokenHash_key" ON "SlackLinkRequest"("tokenHash");

-- CreateIndex
CREATE INDEX "SlackLinkRequest_slackUserId_idx" ON "SlackLinkRequest"("slackUserId");

-- AddForeignKey
ALTER TABLE "SlackLinkRequest" ADD CONSTRAINT "SlackLinkRequest_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Data: Slack ids typed in before links were confirmed prove nothing. Each
-- becomes a pending request that can never be confirmed (its "hash" is no
-- SHA-256 of any token, and it has expired), so the user sees it on their
-- profile and sends the confirmation with one click; until then Slack
-- decisions by that member are refused.
INSERT INTO "SlackLinkRequest" ("id", "userId", "slackUserId", "tokenHash", "expiresAt", "createdAt")
SELECT gen_random_uuid(), "id", "slackUserId", 'unissued:' || gen_random_uuid()::text, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP
FROM "User"
WHERE "slackUserId" IS NOT NULL AND "slackLinkedAt" IS NULL;

UPDATE "User" SET "slackUserId" = NULL WHERE "slackLinkedAt" IS NULL;
