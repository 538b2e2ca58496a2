import 'server-only';
import { z } from 'zod';
import { db } from '@/lib/server/db';
import { moduleLogger } from '@/lib/server/logger';
import { notFound } from '@/lib/server/http/api-error';
import type { LogReader } from '@/lib/server/transparency/access';
import { endLine } from '@/lib/verify/export-format';
import { EXPORT_CHUNK } from './export';
import { ROW_COLUMNS } from './rows';
import {
  decisionLines,
  exportHeaderLine,
  recordLines,
  rowBound,
  SIGNED_ROW_COLUMNS,
  type SignedRow,
  startSignedExport,
} from './signed-export';

/**
 * A session's evidence bundle (issue 13 item 5): everything an outside
 * auditor needs to check what happened in one session with nothing but the
 * file — the session's records with their inclusion proofs, the decisions
 * (with their signed receipts) of the approval tickets those records link
 * to, the signed tree head, and the JWKS itself in the header. The format is
 * the signed JSONL export's (lib/verify/export-format.ts, kind `evidence`),
 * so `agent-hooks audit verify` checks it.
 *
 * Readers: signed-in auditors and admins (any host), and a host's API key
 * for its own sessions; another host's session is 404, as everywhere else.
 */

/** The evidence route's query (documented from this schema in lib/server/openapi/operations-log.ts). */
export const evidenceQuery = z
  .object({
    host_id: z.uuid(),
    /** Add the consistency proof from the signed tree head of this size to the bundle's. */
    consistency_from: z
      .string()
      .regex(/^\d{1,15}$/)
      .transform(Number)
      .optional(),
  })
  .strict();

export type EvidenceBundle = { body: ReadableStream<Uint8Array>; filename: string };

const log = moduleLogger('audit-evidence');

export async function sessionEvidence(
  actor: LogReader,
  hostId: string,
  sessionId: string,
  opts: { consistencyFrom?: number } = {},
): Promise<EvidenceBundle> {
  if (actor.kind === 'host' && actor.hostId !== hostId) throw notFound('The session');
  const prisma = await db();
  const known = await prisma.$queryRawUnsafe<unknown[]>(
    `SELECT 1 FROM "SessionChain" WHERE "hostId" = $1::uuid AND "sessionId" = $2
     UNION ALL SELECT 1 FROM "InterceptionRecord" WHERE "hostId" = $1::uuid AND "sessionId" = $2
     LIMIT 1`,
    hostId,
    sessionId,
  );
  if (known.length === 0) throw notFound('The session');
  const session = { hostId, sessionId };
  const start = await startSignedExport(prisma, {
    sessions: [session],
    consistencyFrom: opts.consistencyFrom,
  });
  const header = await exportHeaderLine(start, 'evidence', {
    kind: 'session',
    host_id: hostId,
    session_id: sessionId,
  });
  const encoder = new TextEncoder();
  const bound = rowBound(start, session);
  let after = -1;
  let records = 0;
  let stage: 'header' | 'records' | 'decisions' | 'done' = 'header';
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (stage === 'header') {
          stage = 'records';
          controller.enqueue(encoder.encode(header));
        } else if (stage === 'records') {
          const rows = await prisma.$queryRaw<SignedRow[]>`
            SELECT ${ROW_COLUMNS}, ${SIGNED_ROW_COLUMNS}
            FROM "InterceptionRecord" r JOIN "Host" h ON h.id = r."hostId"
            WHERE r."hostId" = ${hostId}::uuid AND r."sessionId" = ${sessionId}
              AND r."hostFailure" = false AND r.sequence > ${after} ${bound}
            ORDER BY r.sequence ASC LIMIT ${EXPORT_CHUNK}`;
          records += rows.length;
          after = rows.at(-1)?.sequence ?? after;
          if (rows.length > 0) {
            controller.enqueue(encoder.encode(await recordLines(prisma, rows, start.head.size)));
          }
          if (rows.length < EXPORT_CHUNK) stage = 'decisions';
        } else if (stage === 'decisions') {
          const decisions = await decisionLines(prisma, session, start);
          stage = 'done';
          controller.enqueue(
            encoder.encode(
              decisions.text + endLine({ kind: 'end', records, decisions: decisions.count }),
            ),
          );
          controller.close();
        }
      } catch (err) {
        log.error({ err }, 'evidence bundle failed mid-stream');
        stage = 'done';
        controller.error(err);
      }
    },
  });
  const safe = sessionId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'session';
  return { body, filename: `evidence-${safe}.jsonl` };
}
