-- The transparency log (issue 13 item 3): an append-only RFC 9162 Merkle tree
-- over every stored record and decision. LogLeaf maps a leaf index to what it
-- logs; LogNode holds every perfect subtree (level 0: the leaf hashes), so a
-- proof is one primary-key read; TreeHead keeps every signed tree head.

-- AlterTable
ALTER TABLE "Decision" ADD COLUMN "logIndex" BIGINT;

-- AlterTable
ALTER TABLE "InterceptionRecord" ADD COLUMN "logIndex" BIGINT;

-- CreateTable
CREATE TABLE "LogLeaf" (
    "index" BIGINT NOT NULL,
    "kind" TEXT NOT NULL,
    "refId" TEXT NOT NULL,
    "appendedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LogLeaf_pkey" PRIMARY KEY ("index")
);

-- CreateTable
CREATE TABLE "LogNode" (
    "level" INTEGER NOT NULL,
    "index" BIGINT NOT NULL,
    "hash" BYTEA NOT NULL,

    CONSTRAINT "LogNode_pkey" PRIMARY KEY ("level","index")
);

-- CreateTable
CREATE TABLE "TreeHead" (
    "size" BIGINT NOT NULL,
    "rootHash" TEXT NOT NULL,
    "timestamp" TIMESTAMP(3) NOT NULL,
    "kid" TEXT NOT NULL,
    "jws" TEXT NOT NULL,

    CONSTRAINT "TreeHead_pkey" PRIMARY KEY ("size")
);

-- CreateIndex
CREATE UNIQUE INDEX "Decision_logIndex_key" ON "Decision"("logIndex");

-- What the appender has not logged yet, in its order: partial, so the index
-- stays as small as the backlog.
CREATE INDEX "Decision_unlogged_idx" ON "Decision"("createdAt", "id") WHERE ("logIndex" IS NULL);

-- CreateIndex
CREATE UNIQUE INDEX "InterceptionRecord_logIndex_key" ON "InterceptionRecord"("logIndex");

-- CreateIndex
CREATE INDEX "InterceptionRecord_unlogged_idx" ON "InterceptionRecord"("receivedAt", "id") WHERE ("logIndex" IS NULL);

-- CreateIndex
CREATE UNIQUE INDEX "LogLeaf_kind_refId_key" ON "LogLeaf"("kind", "refId");
