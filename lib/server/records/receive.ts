import 'server-only';
import { z } from 'zod';
import { db } from '@/lib/server/db';
import { AppError } from '@/lib/server/http/api-error';
import type { HostPrincipal } from '@/lib/server/http/host-auth';
import { moduleLogger } from '@/lib/server/logger';
import { countRefused, noteClientDropped } from '@/lib/server/metrics/records';
import { type IngestResult, ingestRecords } from './ingest';
import { readBodyText } from '@/lib/server/http/read-body';
import { MAX_BODY_BYTES } from './limits';
import { bodyFormat, parseRecordsBody } from './parse-body';

/** Header a RecordSink sends with its running total of records it had to drop. */
export const DROPPED_HEADER = 'x-checkpoint-dropped';
/** The optional `?agent_id=` recorded on every row (the OpenAPI document shows this schema). */
export const agentIdParam = z.string().min(1).max(200);
const log = moduleLogger('records');

/** POST /api/v1/records: body → ingest, counting refusals and the client's drops. */
export async function receiveRecords(req: Request, host: HostPrincipal): Promise<IngestResult> {
  await noteDropped(req, host);
  try {
    const format = bodyFormat(req.headers.get('content-type'));
    const agent = new URL(req.url).searchParams.get('agent_id');
    if (agent !== null && !agentIdParam.safeParse(agent).success) {
      throw new AppError('request_invalid', 'agent_id must be 1–200 characters.');
    }
    const { values, errors } = parseRecordsBody(await readBodyText(req, MAX_BODY_BYTES), format);
    return await ingestRecords(host.hostId, values, { agentId: agent, parseErrors: errors });
  } catch (err) {
    if (err instanceof AppError) countRefused(err.code);
    throw err;
  }
}

/**
 * A sink's dropped counter must reach someone who can act on it: it is a
 * metric, and each increase leaves an AuditEvent naming the host.
 */
async function noteDropped(req: Request, host: HostPrincipal): Promise<void> {
  const raw = req.headers.get(DROPPED_HEADER);
  if (raw === null || !/^\d{1,15}$/.test(raw)) return;
  const total = Number(raw);
  const previous = noteClientDropped(host.hostName ?? host.hostId, total);
  if (total <= previous) return;
  try {
    const prisma = await db();
    await prisma.auditEvent.create({
      data: {
        actorKind: 'host',
        action: 'records.client_dropped',
        targetType: 'host',
        targetId: host.hostId,
        details: { droppedTotal: total, previouslyReported: previous },
      },
    });
  } catch (err) {
    log.warn({ err, hostId: host.hostId }, 'could not record a sink drop report');
  }
}
