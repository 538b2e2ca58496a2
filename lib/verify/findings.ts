/**
 * What a check of stored audit data against the transparency log can find
 * wrong (issue 13 item 4). One vocabulary for every verifier: the session
 * timeline and record pages, the background verifier in the worker, and the
 * offline `agent-hooks audit verify`, so each names a failure the same way.
 *
 * - altered: the row (or exported line) no longer hashes to its leaf, or a
 *   displayed column disagrees with the record JSON it is copied from.
 * - missing: the log or the session's chain says a record exists that is
 *   not there (a hole in the sequences, a leaf whose record was deleted).
 * - truncated: the session ends before its stored chain head.
 * - out_of_order: the records are all there but not in the order they were
 *   chained (sequences or chain links swapped).
 * - forged: a row that was never appended through ingest (not in the log
 *   although older than the append interval, refused by the appender, or
 *   naming a leaf that belongs to another row).
 * - not_logged: stored but not appended yet (normal for a few seconds).
 * - tree_head_invalid: a signed tree head whose signature, key or root does
 *   not verify.
 * - proof_failed: an inclusion proof that does not lead to the tree head's
 *   root.
 * - inconsistent: the log is not an extension of an earlier (witnessed or
 *   given) tree head.
 * - deleted_by_retention: a leaf whose record the retention policy removed
 *   (reported, not a failure).
 */
export const INTEGRITY_PROBLEMS = [
  'altered',
  'missing',
  'truncated',
  'out_of_order',
  'forged',
  'not_logged',
  'tree_head_invalid',
  'proof_failed',
  'inconsistent',
  'deleted_by_retention',
] as const;

export type IntegrityProblem = (typeof INTEGRITY_PROBLEMS)[number];

/** Problems that are not failures: a verifier reports them but still passes. */
export const BENIGN_PROBLEMS: ReadonlySet<IntegrityProblem> = new Set([
  'not_logged',
  'deleted_by_retention',
]);

export type IntegrityFinding = {
  problem: IntegrityProblem;
  /** What the finding is about. */
  subject: 'record' | 'decision' | 'tree_head' | 'session';
  /** InterceptionRecord.id (decimal string) when the subject is a record. */
  recordId: string | null;
  /** Ticket id when the subject is a decision. */
  ticketId: string | null;
  hostId: string | null;
  sessionId: string | null;
  sequence: number | null;
  /** The leaf index in the log, when known. */
  leafIndex: number | null;
  /** One sentence a person can act on, naming the record. */
  detail: string;
};

/** A finding with the fields a caller does not know set to null. */
export function finding(
  problem: IntegrityProblem,
  subject: IntegrityFinding['subject'],
  detail: string,
  at: Partial<Omit<IntegrityFinding, 'problem' | 'subject' | 'detail'>> = {},
): IntegrityFinding {
  return {
    problem,
    subject,
    recordId: at.recordId ?? null,
    ticketId: at.ticketId ?? null,
    hostId: at.hostId ?? null,
    sessionId: at.sessionId ?? null,
    sequence: at.sequence ?? null,
    leafIndex: at.leafIndex ?? null,
    detail,
  };
}

export function isFailure(f: IntegrityFinding): boolean {
  return !BENIGN_PROBLEMS.has(f.problem);
}
