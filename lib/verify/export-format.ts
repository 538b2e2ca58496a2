/**
 * The JSONL format of audit exports and evidence bundles (issue 13 items 4
 * and 5): what `GET /api/audit/export?format=jsonl` and
 * `GET /api/v1/audit/sessions/{id}/evidence` write and what `agent-hooks
 * audit verify` reads. docs/verifying.md describes every field for
 * verifiers in other languages.
 *
 * One JSON object per line, UTF-8, `\n` after every line:
 * 1. a header line (`format`, `version`, the signed tree head every proof
 *    is checked against, optional consistency proofs, the JWKS URL — and
 *    for an evidence bundle the JWKS itself —, the scope and the chain heads
 *    of the sessions the export holds completely);
 * 2. record lines and decision lines, each ending with its leaf data
 *    (`"leaf":` followed by the exact RFC 8785 text the log hashed), its leaf
 *    index and its RFC 9162 inclusion proof against the header's tree head;
 * 3. an end line with the counts, so a file cut short is noticed.
 *
 * The leaf is the LAST member of a line and is written byte for byte as the
 * log hashed it, so a verifier can hash that text directly instead of
 * re-serializing (both give the same bytes; see docs/verifying.md).
 */

export const EXPORT_FORMAT = 'checkpoint-audit-export';
export const EXPORT_VERSION = 1;

/** The tree head as `GET /api/v1/log/tree-head` answers it. */
export type ExportTreeHead = {
  size: number;
  root_hash: string;
  timestamp: number;
  kid: string;
  jws: string;
};

export type ExportConsistency = { from: number; to: number; proof: string[] };

/** A session's chain head as ingest stored it (SessionChain), null when there is none. */
export type ExportChainHead = {
  head_hash: string;
  last_sequence: number;
  record_count: number;
};

/** A session the export holds completely (up to its chain head). */
export type ExportSession = {
  host_id: string;
  session_id: string;
  head: ExportChainHead | null;
};

export type ExportScope =
  | { kind: 'query'; filters: Record<string, unknown> }
  | { kind: 'session'; host_id: string; session_id: string };

export type ExportHeader = {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  /** `export` (the audit browser's download) or `evidence` (a session's bundle). */
  kind: 'export' | 'evidence';
  generated_at: string;
  scope: ExportScope;
  tree_head: ExportTreeHead;
  consistency: ExportConsistency[];
  jwks_url: string;
  /** The JWKS itself (evidence bundles; an export names only its URL). */
  jwks?: { keys: unknown[] };
  sessions: ExportSession[];
};

/** Everything of a record line but its leaf (which is appended as text). */
export type RecordLineMeta = {
  kind: 'record';
  /** InterceptionRecord.id (decimal string): a name, not hashed. */
  id: string;
  /** The host's current name: shown, not hashed. */
  host: string | null;
  leaf_index: number | null;
  proof: string[] | null;
  /** The columns the audit pages and the CSV show, checked against `leaf.record`. */
  columns: Record<string, unknown>;
};

export type DecisionLineMeta = {
  kind: 'decision';
  /** Decision.id (UUID): a name, not hashed. */
  id: string;
  leaf_index: number | null;
  proof: string[] | null;
  /** The signed approval receipt (compact JWS), whose SHA-256 the leaf binds. */
  receipt: string | null;
};

export type EndLine = { kind: 'end'; records: number; decisions: number };

/** The text that separates a line's other members from its leaf. */
export const LEAF_MEMBER = ',"leaf":';

/** A record or decision line: its meta members, then `"leaf":` and the leaf's canonical text. */
export function leafLine(meta: RecordLineMeta | DecisionLineMeta, leafText: string): string {
  const head = JSON.stringify(meta);
  return `${head.slice(0, -1)}${LEAF_MEMBER}${leafText}}\n`;
}

export function headerLine(header: ExportHeader): string {
  return `${JSON.stringify(header)}\n`;
}

export function endLine(end: EndLine): string {
  return `${JSON.stringify(end)}\n`;
}
