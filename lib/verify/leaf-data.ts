import { createHash } from 'node:crypto';
import { canonicalJson } from '@checkpoint/agent-hooks';
import { leafHash } from '@/lib/proof';

/**
 * What a leaf of the transparency log holds (issue 13 item 3): the UTF-8
 * RFC 8785 canonical JSON of what the audit pages display and export for a
 * record or a decision. This module is the single definition; the appender,
 * `checkLeaf`, the export and the offline verifier (`agent-hooks audit
 * verify`) all build leaf data here, so they cannot disagree about a byte.
 * Pure (no 'server-only'): the CLI imports it under plain tsx.
 *
 * Where each displayed InterceptionRecord column comes from:
 * - hashed as given: host_id (hostId), session_id (sessionId), sequence,
 *   record (the stored JSON), chain_hash, prev_hash, received_at
 *   (receivedAt, ISO 8601 UTC with milliseconds), agent_id (agentId: the
 *   ingest option, not in the record), ticket_id (ticketId, the linked
 *   approval ticket).
 * - derived from `record` by `recordColumns` (record-columns.ts), so hashed
 *   through it and checked against it by `checkLeaf` and the export
 *   verifier: interceptionPoint, mode, decision, reason, resolvedBy,
 *   foldTruncated, decidedBy, hostError, identityProvider, inputIdentity,
 *   enforcedIdentity, timestamp.
 * - derived from hashed fields: hostFailure (session '' and sequence -1),
 *   contentHash (SHA-256 of the record's canonical JSON), dedupeKey.
 * - hostName is the Host row's current name, not part of the record.
 */

/** A stored record as the log hashes it (text forms, so no driver conversion changes them). */
export type RecordLeafSource = {
  hostId: string;
  sessionId: string;
  sequence: number;
  record: unknown;
  chainHash: string;
  prevHash: string | null;
  /** ISO 8601 UTC with milliseconds, as the audit pages show it. */
  receivedAt: string;
  agentId: string | null;
  ticketId: string | null;
};

/** A decision as the log hashes it. */
export type DecisionLeafSource = {
  ticketId: string;
  hostId: string;
  outcome: string;
  contextIdentity: string | null;
  decidedByKind: string;
  userId: string | null;
  note: string | null;
  /** ISO 8601 UTC with milliseconds (Decision.createdAt). */
  decidedAt: string;
  verdict: unknown;
  /** The signed approval receipt (compact JWS), when one was issued. */
  receipt: string | null;
};

export function recordLeafObject(r: RecordLeafSource): Record<string, unknown> {
  return {
    kind: 'record',
    host_id: r.hostId,
    session_id: r.sessionId,
    sequence: r.sequence,
    record: r.record,
    chain_hash: r.chainHash,
    prev_hash: r.prevHash,
    received_at: r.receivedAt,
    agent_id: r.agentId,
    ticket_id: r.ticketId,
  };
}

/** Lowercase hex SHA-256 of a receipt's JWS text: what a decision leaf binds. */
export function receiptSha256(jws: string): string {
  return createHash('sha256').update(jws, 'utf8').digest('hex');
}

/**
 * The receipt enters as its SHA-256 (hex of the JWS text), the same value
 * the resolution's evidence names (`sha256:<hex>`, §5.3), so the log binds
 * the receipt without duplicating it; omitted when there is none.
 */
export function decisionLeafObject(d: DecisionLeafSource): Record<string, unknown> {
  const leaf: Record<string, unknown> = {
    kind: 'decision',
    ticket_id: d.ticketId,
    host_id: d.hostId,
    outcome: d.outcome,
    context_identity: d.contextIdentity,
    decided_by_kind: d.decidedByKind,
    user_id: d.userId,
    note: d.note,
    decided_at: d.decidedAt,
    verdict: d.verdict ?? null,
  };
  if (d.receipt !== null) leaf.receipt_sha256 = receiptSha256(d.receipt);
  return leaf;
}

const encoder = new TextEncoder();

/** The canonical JSON text of a leaf (what the export writes as a line's `leaf`). */
export function leafText(leaf: Record<string, unknown>): string {
  return canonicalJson(leaf);
}

/** UTF-8 canonical JSON: the bytes a leaf hashes. */
export function leafBytes(leaf: Record<string, unknown>): Uint8Array {
  return encoder.encode(canonicalJson(leaf));
}

export function recordLeafHash(r: RecordLeafSource): Uint8Array {
  return leafHash(leafBytes(recordLeafObject(r)));
}

export function decisionLeafHash(d: DecisionLeafSource): Uint8Array {
  return leafHash(leafBytes(decisionLeafObject(d)));
}

const LEAF_PREFIX = Buffer.from([0]);

/**
 * RFC 9162 leaf hash (lowercase hex) of leaf data given as its text, hashed
 * as is: the offline verifier hashes the exact bytes an export carries, so it
 * never re-serializes (a text that is not what the log hashed simply does not
 * reach the signed root).
 */
export function leafHashHexOfText(text: string): string {
  return createHash('sha256').update(LEAF_PREFIX).update(text, 'utf8').digest('hex');
}
