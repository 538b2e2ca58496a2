import { randomBytes } from 'node:crypto';
import { approvalExpireDedupeKey } from '@/lib/server/jobs/definitions';
import { enqueueInTx } from '@/lib/server/queue/outbox';
import { testDb } from './helpers/db';

/**
 * A pending ticket and its expiry outbox row (due at the deadline) in one
 * transaction: what intake writes.
 */
export async function pendingTicket(hostId: string, expiresAt: Date): Promise<string> {
  const prisma = await testDb();
  return prisma.$transaction(async (tx) => {
    const t = await tx.approvalTicket.create({
      data: {
        hostId,
        contextIdentity: `sha256:${randomBytes(32).toString('hex')}`,
        interceptionPoint: 'pre_tool_call',
        verdict: { decision: 'deny', reason: 'review', approval: {} },
        context: { target: { name: 'wire_transfer' } },
        sessionId: `s-${randomBytes(4).toString('hex')}`,
        agentId: 'billing-bot',
        status: 'pending',
        expiresAt,
      },
      select: { id: true },
    });
    await enqueueInTx(tx, {
      kind: 'approvals.expire',
      payload: { ticketId: t.id },
      dedupeKey: approvalExpireDedupeKey(t.id),
      availableAt: expiresAt,
    });
    return t.id;
  });
}
