-- CreateTable
CREATE TABLE "SigningKey" (
    "kid" TEXT NOT NULL,
    "alg" TEXT NOT NULL,
    "publicJwk" JSONB NOT NULL,
    "privateKey" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "activatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retiredAt" TIMESTAMP(3),

    CONSTRAINT "SigningKey_pkey" PRIMARY KEY ("kid")
);

-- CreateIndex
CREATE INDEX "SigningKey_createdAt_idx" ON "SigningKey"("createdAt");

-- One active key per algorithm: several processes starting at once, or two
-- rotations racing, cannot leave two keys signing.
CREATE UNIQUE INDEX "SigningKey_one_active" ON "SigningKey"("alg") WHERE ("retiredAt" IS NULL);
