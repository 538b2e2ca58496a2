import 'server-only';
import { Prisma } from '@/lib/generated/prisma/client';

/** One record as the search table and the CSV export show it. */
export type AuditRow = {
  id: string;
  /** ISO 8601 UTC with milliseconds. */
  receivedAt: string;
  hostId: string;
  hostName: string;
  sessionId: string;
  sequence: number;
  interceptionPoint: string;
  mode: string;
  decision: string;
  reason: string | null;
  resolvedBy: string | null;
  foldTruncated: boolean | null;
  decidedBy: number | null;
  hostError: boolean;
  /** A host's record of its own failure (empty session, sequence -1). */
  hostFailure: boolean;
  agentId: string | null;
  identityProvider: string | null;
  inputIdentity: string | null;
  enforcedIdentity: string | null;
  /** The context's own timestamp (§10.3), as the host sent it. */
  timestamp: string | null;
  chainHash: string;
};

/**
 * The columns of AuditRow. Times and ids come back as text so that no
 * driver conversion (time zones, bigint) can change them.
 */
export const ROW_COLUMNS = Prisma.sql`
  r.id::text AS id,
  to_char(r."receivedAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "receivedAt",
  r."hostId"::text AS "hostId",
  h.name AS "hostName",
  r."sessionId", r.sequence, r."interceptionPoint", r.mode, r.decision, r.reason,
  r."resolvedBy", r."foldTruncated", r."decidedBy", r."hostError", r."hostFailure", r."agentId",
  r."identityProvider", r."inputIdentity", r."enforcedIdentity",
  to_char(r.timestamp, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS timestamp,
  r."chainHash"`;
