import 'server-only';
import { db } from '../db';
import { isUuid } from '../hosts/admin-actor';

export interface DeliveryRow {
  id: string;
  kind: 'callback' | 'resolver';
  ticketId: string | null;
  messageId: string;
  eventType: string;
  status: 'pending' | 'delivered' | 'failed' | 'dead';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  latencyMs: number | null;
  createdAt: Date;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
}

/** The host's delivery log, newest first (callbacks and resolver consultations). */
export async function listDeliveries(hostId: string, take = 100): Promise<DeliveryRow[]> {
  if (!isUuid(hostId)) return [];
  const prisma = await db();
  const rows = await prisma.webhookDelivery.findMany({
    where: { webhook: { hostId } },
    orderBy: { createdAt: 'desc' },
    take: Math.min(Math.max(take, 1), 500),
    select: {
      id: true,
      ticketId: true,
      messageId: true,
      eventType: true,
      status: true,
      attempts: true,
      lastStatusCode: true,
      lastError: true,
      latencyMs: true,
      createdAt: true,
      nextAttemptAt: true,
      deliveredAt: true,
      webhook: { select: { kind: true } },
    },
  });
  return rows.map(({ webhook, ...r }) => ({ ...r, kind: webhook.kind }));
}

/** Endpoints switched off by failures or a failed self-test: the host page shows a banner. */
export async function webhookAlerts(hostId: string) {
  if (!isUuid(hostId)) return [];
  const prisma = await db();
  return prisma.webhook.findMany({
    where: { hostId, enabled: false, disabledReason: { not: 'disabled_by_admin' } },
    select: { id: true, kind: true, disabledAt: true, disabledReason: true },
  });
}
