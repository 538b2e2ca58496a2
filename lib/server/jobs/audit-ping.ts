import 'server-only';
import { z } from 'zod';
import { defineJob } from './define-job';

/**
 * Writes one AuditEvent. It proves the whole path (outbox row → relay →
 * BullMQ → worker → database) end to end, from `/status` or from tests.
 */
export const auditPingJob = defineJob({
  name: 'audit.ping',
  schema: z.object({ note: z.string().max(200) }).strict(),
  async handler(payload, { db, jobId }) {
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
});
