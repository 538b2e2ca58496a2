-- CreateTable
CREATE TABLE "KeyFingerprint" (
    "name" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KeyFingerprint_pkey" PRIMARY KEY ("name")
);
