import 'server-only';
import type { Prisma } from '@/lib/generated/prisma/client';
import { db } from '../db';
import {
  auditHost,
  type HostActorId,
  isUuid,
  lockHost,
  requireHostAdmin,
} from '../hosts/admin-actor';
import { assertWebhookUrl, guardOptionsFromConfig } from '../net/ssrf';
import { WebhookError } from './errors';
import { webhookPolicy } from './policy';
import { encryptSecret, SecretDecryptError } from './encryption';
import { activeSecrets, rotateSecrets, secretSummaries } from './secrets';
import { runSelfTest, type SelfTestResult } from './self-test';
import { generateWebhookSecret } from './signing';

export type WebhookKind = 'callback' | 'resolver';
export const WEBHOOK_KINDS: readonly WebhookKind[] = ['callback', 'resolver'];

/** Resolvers may take longer than callbacks: a policy service may think. */
export const TIMEOUT_LIMITS: Record<WebhookKind, [number, number]> = {
  callback: [500, 5_000],
  resolver: [500, 30_000],
};

export interface WebhookView {
  id: string;
  kind: WebhookKind;
  url: string;
  enabled: boolean;
  timeoutMs: number;
  consecutiveFailures: number;
  disabledAt: Date | null;
  disabledReason: string | null;
  selfTest: SelfTestResult | null;
  secrets: Array<{ id: string; createdAt: Date; expiresAt: Date | null }>;
}

export interface SaveWebhookInput {
  hostId: string;
  kind: string;
  url: string;
  timeoutMs?: number;
}

export interface SaveWebhookResult {
  webhook: WebhookView;
  /** The new signing secret, present only when one was created: show it once. */
  secret?: string;
  selfTest?: SelfTestResult;
}

function parseKind(kind: string): WebhookKind {
  if (!(WEBHOOK_KINDS as readonly string[]).includes(kind)) {
    throw new WebhookError('webhook_kind_invalid', 'The kind must be callback or resolver.');
  }
  return kind as WebhookKind;
}

function parseTimeout(kind: WebhookKind, ms: number | undefined): number {
  const [min, max] = TIMEOUT_LIMITS[kind];
  const v = ms ?? max;
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new WebhookError('webhook_timeout_invalid', `The timeout must be ${min}–${max} ms.`);
  }
  return v;
}

const VIEW_SELECT = {
  id: true,
  kind: true,
  url: true,
  enabled: true,
  timeoutMs: true,
  consecutiveFailures: true,
  disabledAt: true,
  disabledReason: true,
  selfTest: true,
} satisfies Prisma.WebhookSelect;

export async function getHostWebhooks(
  hostId: string,
): Promise<Record<WebhookKind, WebhookView | null>> {
  const prisma = await db();
  const rows = isUuid(hostId)
    ? await prisma.webhook.findMany({ where: { hostId }, select: VIEW_SELECT })
    : [];
  const out: Record<WebhookKind, WebhookView | null> = { callback: null, resolver: null };
  for (const r of rows) {
    out[r.kind] = {
      ...r,
      selfTest: (r.selfTest as SelfTestResult | null) ?? null,
      secrets: await secretSummaries(prisma, r.id),
    };
  }
  return out;
}

/**
 * Registers (or re-points) the host's callback or resolver webhook. The URL
 * passes the SSRF guard first; a resolver is self-tested and enabled only if
 * every case answered validly and echoed the identity. A new webhook gets a
 * signing secret, returned here and never again.
 */
export async function saveWebhook(
  input: SaveWebhookInput,
  actorId: HostActorId,
): Promise<SaveWebhookResult> {
  const kind = parseKind(input.kind);
  const timeoutMs = parseTimeout(kind, input.timeoutMs);
  const guard = guardOptionsFromConfig();
  const url = (await assertWebhookUrl(input.url, guard)).toString();
  const prisma = await db();
  const existing = isUuid(input.hostId)
    ? await prisma.webhook.findUnique({
        where: { hostId_kind: { hostId: input.hostId, kind } },
        select: { id: true },
      })
    : null;
  // The self-test signs with the secret the receiver will verify: the
  // current one, or the one about to be created.
  const pendingSecret = existing ? undefined : generateWebhookSecret();
  const secrets = existing ? await readableSecrets(prisma, existing.id) : [pendingSecret as string];
  const selfTest =
    kind === 'resolver' ? await runSelfTest(url, { secrets, timeoutMs, guard }) : undefined;
  const enabled = selfTest ? selfTest.ok : true;

  const id = await prisma.$transaction(async (tx) => {
    await requireHostAdmin(tx, actorId);
    await lockHost(tx, input.hostId);
    const data = {
      url,
      timeoutMs,
      enabled,
      selfTest: (selfTest ?? undefined) as Prisma.InputJsonValue | undefined,
      ...(enabled ? { consecutiveFailures: 0, disabledAt: null, disabledReason: null } : {}),
      ...(!enabled ? { disabledAt: new Date(), disabledReason: 'self_test_failed' } : {}),
    };
    const hook = await tx.webhook.upsert({
      where: { hostId_kind: { hostId: input.hostId, kind } },
      create: { hostId: input.hostId, kind, ...data },
      update: data,
      select: { id: true },
    });
    if (pendingSecret) {
      await tx.webhookSecret.create({
        data: { webhookId: hook.id, secret: encryptSecret(pendingSecret) },
      });
    }
    await auditHost(tx, actorId, existing ? 'webhook.updated' : 'webhook.created', input.hostId, {
      webhookId: hook.id,
      kind,
      url,
      enabled,
    });
    return hook.id;
  });
  const views = await getHostWebhooks(input.hostId);
  const webhook = views[kind];
  if (!webhook || webhook.id !== id) throw new Error('webhook vanished after save');
  return { webhook, secret: pendingSecret, selfTest };
}

/** A new secret; the old ones keep signing for `overlapMs` (both signatures are sent). */
export async function rotateWebhookSecret(
  hostId: string,
  kind: string,
  actorId: HostActorId,
  overlapMs = webhookPolicy().rotationOverlapMs,
): Promise<string> {
  const k = parseKind(kind);
  if (!Number.isInteger(overlapMs) || overlapMs < 0 || overlapMs > 30 * 24 * 3600_000) {
    throw new WebhookError('secret_invalid', 'The overlap must be between 0 and 30 days.');
  }
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    await requireHostAdmin(tx, actorId);
    const hook = await findHook(tx, hostId, k);
    const plain = await rotateSecrets(tx, hook.id, overlapMs);
    await auditHost(tx, actorId, 'webhook.secret_rotated', hostId, {
      webhookId: hook.id,
      kind: k,
      overlapMs,
    });
    return plain;
  });
}

/** Runs the resolver self-test now; a failure disables the resolver, a pass does not enable it. */
export async function selfTestResolver(
  hostId: string,
  actorId: HostActorId,
): Promise<SelfTestResult> {
  const prisma = await db();
  const hook = await findHook(prisma, hostId, 'resolver');
  const result = await runSelfTest(hook.url, {
    secrets: await readableSecrets(prisma, hook.id),
    timeoutMs: hook.timeoutMs,
    guard: guardOptionsFromConfig(),
  });
  await prisma.$transaction(async (tx) => {
    await requireHostAdmin(tx, actorId);
    await tx.webhook.update({
      where: { id: hook.id },
      data: {
        selfTest: result as unknown as Prisma.InputJsonValue,
        ...(result.ok
          ? {}
          : { enabled: false, disabledAt: new Date(), disabledReason: 'self_test_failed' }),
      },
    });
    await auditHost(tx, actorId, 'webhook.self_test', hostId, {
      webhookId: hook.id,
      ok: result.ok,
    });
  });
  return result;
}

/**
 * Enables or disables an endpoint. Enabling clears the failure streak; a
 * resolver is self-tested again first and stays off if it fails.
 */
export async function setWebhookEnabled(
  hostId: string,
  kind: string,
  enabled: boolean,
  actorId: HostActorId,
): Promise<void> {
  const k = parseKind(kind);
  if (enabled && k === 'resolver') {
    const result = await selfTestResolver(hostId, actorId);
    if (!result.ok) {
      throw new WebhookError(
        'webhook_self_test_failed',
        'The resolver failed its self-test; it stays disabled.',
      );
    }
  }
  const prisma = await db();
  await prisma.$transaction(async (tx) => {
    await requireHostAdmin(tx, actorId);
    const hook = await findHook(tx, hostId, k);
    await tx.webhook.update({
      where: { id: hook.id },
      data: enabled
        ? { enabled: true, consecutiveFailures: 0, disabledAt: null, disabledReason: null }
        : { enabled: false, disabledAt: new Date(), disabledReason: 'disabled_by_admin' },
    });
    await auditHost(
      tx,
      actorId,
      enabled ? 'webhook.enabled' : 'webhook.disabled_by_admin',
      hostId,
      {
        webhookId: hook.id,
        kind: k,
      },
    );
  });
}

export async function deleteWebhook(
  hostId: string,
  kind: string,
  actorId: HostActorId,
): Promise<void> {
  const k = parseKind(kind);
  const prisma = await db();
  await prisma.$transaction(async (tx) => {
    await requireHostAdmin(tx, actorId);
    const hook = await findHook(tx, hostId, k);
    await tx.webhook.delete({ where: { id: hook.id } });
    await auditHost(tx, actorId, 'webhook.deleted', hostId, { webhookId: hook.id, kind: k });
  });
}

async function findHook(
  tx: Prisma.TransactionClient | Awaited<ReturnType<typeof db>>,
  hostId: string,
  kind: WebhookKind,
) {
  const hook = isUuid(hostId)
    ? await tx.webhook.findUnique({
        where: { hostId_kind: { hostId, kind } },
        select: { id: true, url: true, timeoutMs: true },
      })
    : null;
  if (!hook) throw new WebhookError('not_found', `This host has no ${kind} webhook.`);
  return hook;
}

/**
 * The signing secrets for a self-test. One this process cannot decrypt (the
 * key changed, the row was altered) is a 409 telling the admin to rotate,
 * never a 500; nothing was changed.
 */
async function readableSecrets(
  prisma: Parameters<typeof activeSecrets>[0],
  webhookId: string,
): Promise<string[]> {
  try {
    return await activeSecrets(prisma, webhookId);
  } catch (err) {
    if (!(err instanceof SecretDecryptError)) throw err;
    throw new WebhookError(
      'signing_secret_unreadable',
      'The stored signing secret cannot be read with this APP_ENCRYPTION_KEY. Rotate the secret, then save again.',
    );
  }
}
