-- CreateEnum
CREATE TYPE "Role" AS ENUM ('admin', 'reviewer', 'auditor');

-- CreateEnum
CREATE TYPE "WebhookKind" AS ENUM ('callback', 'resolver');

-- CreateEnum
CREATE TYPE "DeliveryStatus" AS ENUM ('pending', 'delivered', 'failed', 'dead');

-- CreateEnum
CREATE TYPE "TicketStatus" AS ENUM ('pending', 'approved', 'rejected', 'expired');

-- CreateEnum
CREATE TYPE "DecisionOutcome" AS ENUM ('approve', 'reject', 'unresolved');

-- CreateTable
CREATE TABLE "User" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "passwordHash" TEXT,
    "roles" "Role"[],
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "oidcSubject" TEXT,
    "slackUserId" TEXT,
    "lastSignInAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SignInAttempt" (
    "id" BIGSERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "ip" TEXT,
    "success" BOOLEAN NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SignInAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" BIGSERIAL NOT NULL,
    "actorId" UUID,
    "actorKind" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "details" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Host" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "defaultTimeoutMs" INTEGER NOT NULL DEFAULT 900000,
    "maxTimeoutMs" INTEGER NOT NULL DEFAULT 86400000,
    "redactionPaths" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "builtIn" BOOLEAN NOT NULL DEFAULT false,
    "slackChannel" TEXT,
    "slackWebhookUrl" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "archivedAt" TIMESTAMP(3),

    CONSTRAINT "Host_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" UUID NOT NULL,
    "hostId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "createdById" UUID,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Webhook" (
    "id" UUID NOT NULL,
    "hostId" UUID NOT NULL,
    "kind" "WebhookKind" NOT NULL,
    "url" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "timeoutMs" INTEGER NOT NULL DEFAULT 5000,
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "disabledAt" TIMESTAMP(3),
    "disabledReason" TEXT,
    "selfTest" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Webhook_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookSecret" (
    "id" UUID NOT NULL,
    "webhookId" UUID NOT NULL,
    "secret" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3),

    CONSTRAINT "WebhookSecret_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" UUID NOT NULL,
    "webhookId" UUID NOT NULL,
    "ticketId" UUID,
    "messageId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" "DeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastStatusCode" INTEGER,
    "lastError" TEXT,
    "latencyMs" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "nextAttemptAt" TIMESTAMP(3),
    "deliveredAt" TIMESTAMP(3),

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApprovalTicket" (
    "id" UUID NOT NULL,
    "hostId" UUID NOT NULL,
    "contextIdentity" TEXT,
    "identityProvider" TEXT,
    "interceptionPoint" TEXT NOT NULL,
    "verdict" JSONB NOT NULL,
    "context" JSONB NOT NULL,
    "redactedPaths" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "sessionId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "sessionLabel" TEXT,
    "agentLabel" TEXT,
    "toolName" TEXT,
    "reason" TEXT,
    "status" "TicketStatus" NOT NULL DEFAULT 'pending',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "decidedAt" TIMESTAMP(3),
    "resolution" JSONB,
    "slackChannel" TEXT,
    "slackTs" TEXT,

    CONSTRAINT "ApprovalTicket_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Decision" (
    "id" UUID NOT NULL,
    "ticketId" UUID NOT NULL,
    "outcome" "DecisionOutcome" NOT NULL,
    "verdict" JSONB,
    "contextIdentity" TEXT,
    "decidedByKind" TEXT NOT NULL,
    "userId" UUID,
    "note" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Decision_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "InterceptionRecord" (
    "id" BIGSERIAL NOT NULL,
    "hostId" UUID NOT NULL,
    "sessionId" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "interceptionPoint" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "reason" TEXT,
    "resolvedBy" TEXT,
    "foldTruncated" BOOLEAN,
    "decidedBy" INTEGER,
    "hostError" BOOLEAN NOT NULL DEFAULT false,
    "identityProvider" TEXT,
    "inputIdentity" TEXT,
    "enforcedIdentity" TEXT,
    "agentId" TEXT,
    "timestamp" TIMESTAMP(3),
    "record" JSONB NOT NULL,
    "chainHash" TEXT NOT NULL,
    "prevHash" TEXT,
    "ticketId" UUID,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "InterceptionRecord_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SessionChain" (
    "hostId" UUID NOT NULL,
    "sessionId" TEXT NOT NULL,
    "lastSequence" INTEGER NOT NULL,
    "headHash" TEXT NOT NULL,
    "recordCount" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SessionChain_pkey" PRIMARY KEY ("hostId","sessionId")
);

-- CreateTable
CREATE TABLE "OutboxEvent" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "dedupeKey" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "availableAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dispatchedAt" TIMESTAMP(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,

    CONSTRAINT "OutboxEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AppSetting" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AppSetting_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE UNIQUE INDEX "User_oidcSubject_key" ON "User"("oidcSubject");

-- CreateIndex
CREATE UNIQUE INDEX "User_slackUserId_key" ON "User"("slackUserId");

-- CreateIndex
CREATE INDEX "SignInAttempt_email_createdAt_idx" ON "SignInAttempt"("email", "createdAt");

-- CreateIndex
CREATE INDEX "SignInAttempt_ip_createdAt_idx" ON "SignInAttempt"("ip", "createdAt");

-- CreateIndex
CREATE INDEX "AuditEvent_createdAt_idx" ON "AuditEvent"("createdAt");

-- CreateIndex
CREATE INDEX "AuditEvent_targetType_targetId_idx" ON "AuditEvent"("targetType", "targetId");

-- CreateIndex
CREATE INDEX "AuditEvent_action_createdAt_idx" ON "AuditEvent"("action", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Host_name_key" ON "Host"("name");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_hash_key" ON "ApiKey"("hash");

-- CreateIndex
CREATE INDEX "ApiKey_hostId_idx" ON "ApiKey"("hostId");

-- CreateIndex
CREATE UNIQUE INDEX "Webhook_hostId_kind_key" ON "Webhook"("hostId", "kind");

-- CreateIndex
CREATE INDEX "WebhookSecret_webhookId_idx" ON "WebhookSecret"("webhookId");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_messageId_key" ON "WebhookDelivery"("messageId");

-- CreateIndex
CREATE INDEX "WebhookDelivery_webhookId_createdAt_idx" ON "WebhookDelivery"("webhookId", "createdAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "ApprovalTicket_status_expiresAt_idx" ON "ApprovalTicket"("status", "expiresAt");

-- CreateIndex
CREATE INDEX "ApprovalTicket_hostId_status_createdAt_idx" ON "ApprovalTicket"("hostId", "status", "createdAt");

-- CreateIndex
CREATE INDEX "ApprovalTicket_sessionId_idx" ON "ApprovalTicket"("sessionId");

-- CreateIndex
CREATE UNIQUE INDEX "ApprovalTicket_hostId_contextIdentity_key" ON "ApprovalTicket"("hostId", "contextIdentity");

-- CreateIndex
CREATE UNIQUE INDEX "Decision_ticketId_key" ON "Decision"("ticketId");

-- CreateIndex
CREATE INDEX "InterceptionRecord_sessionId_sequence_idx" ON "InterceptionRecord"("sessionId", "sequence");

-- CreateIndex
CREATE INDEX "InterceptionRecord_receivedAt_idx" ON "InterceptionRecord"("receivedAt");

-- CreateIndex
CREATE INDEX "InterceptionRecord_interceptionPoint_receivedAt_idx" ON "InterceptionRecord"("interceptionPoint", "receivedAt");

-- CreateIndex
CREATE INDEX "InterceptionRecord_decision_receivedAt_idx" ON "InterceptionRecord"("decision", "receivedAt");

-- CreateIndex
CREATE INDEX "InterceptionRecord_reason_idx" ON "InterceptionRecord"("reason");

-- CreateIndex
CREATE INDEX "InterceptionRecord_agentId_receivedAt_idx" ON "InterceptionRecord"("agentId", "receivedAt");

-- CreateIndex
CREATE UNIQUE INDEX "InterceptionRecord_hostId_sessionId_sequence_key" ON "InterceptionRecord"("hostId", "sessionId", "sequence");

-- CreateIndex
CREATE UNIQUE INDEX "OutboxEvent_dedupeKey_key" ON "OutboxEvent"("dedupeKey");

-- CreateIndex
CREATE INDEX "OutboxEvent_dispatchedAt_availableAt_idx" ON "OutboxEvent"("dispatchedAt", "availableAt");

-- AddForeignKey
ALTER TABLE "AuditEvent" ADD CONSTRAINT "AuditEvent_actorId_fkey" FOREIGN KEY ("actorId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "Host"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Webhook" ADD CONSTRAINT "Webhook_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "Host"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookSecret" ADD CONSTRAINT "WebhookSecret_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_ticketId_fkey" FOREIGN KEY ("ticketId") REFERENCES "ApprovalTicket"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApprovalTicket" ADD CONSTRAINT "ApprovalTicket_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "Host"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Decision" ADD CONSTRAINT "Decision_ticketId_fkey" FOREIGN KEY ("ticketId") REFERENCES "ApprovalTicket"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Decision" ADD CONSTRAINT "Decision_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "InterceptionRecord" ADD CONSTRAINT "InterceptionRecord_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "Host"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "InterceptionRecord" ADD CONSTRAINT "InterceptionRecord_ticketId_fkey" FOREIGN KEY ("ticketId") REFERENCES "ApprovalTicket"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SessionChain" ADD CONSTRAINT "SessionChain_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "Host"("id") ON DELETE CASCADE ON UPDATE CASCADE;
