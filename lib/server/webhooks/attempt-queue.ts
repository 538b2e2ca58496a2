import 'server-only';
import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { enqueueInTx } from '../queue/outbox';

type Tx = Prisma.TransactionClient | PrismaClient;

export function deliverDedupeKey(deliveryId: string, attempt: number, manual = false): string {
  return `webhooks.deliver.${deliveryId}.${attempt}${manual ? '.m' : ''}`;
}

export async function enqueueAttempt(
  tx: Tx,
  deliveryId: string,
  attempt: number,
  opts: { at?: Date; manual?: boolean } = {},
): Promise<void> {
  await enqueueInTx(tx, {
    kind: 'webhooks.deliver',
    payload: { deliveryId, attempt, manual: opts.manual ?? false },
    dedupeKey: deliverDedupeKey(deliveryId, attempt, opts.manual),
    availableAt: opts.at,
  });
}
