import 'server-only';
import { jobDefinitions } from './definitions';
import { withHandler } from './runnable';

/**
 * Writes one AuditEvent. It proves the whole path (outbox row → relay →
 * BullMQ → worker → database) end to end, from `/status` or from tests.
 */
export const auditPingJob = withHandler(
  jobDefinitions['audit.ping'],
  async (payload, { db, jobId }) => {
    await db.auditEvent.create({
      data: {
        actorKind: 'system',
        action: 'audit.ping',
        targetType: 'job',
        targetId: jobId,
        details: { note: payload.note },
      },
    });
  },
);
