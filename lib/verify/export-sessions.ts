import { type IntegrityFinding, finding } from './findings';
import type { ExportChainHead } from './export-format';

/**
 * Per-session checks over an export's record lines (issue 13 item 4). Every
 * line's leaf is checked against the tree head elsewhere; here the lines of
 * one session are checked against each other and, when the export holds the
 * session completely, against the session's chain head: the chain follows
 * ingest order (not sequence order), so it is walked by its links, not by
 * line order.
 */

export type SessionEntry = {
  line: number;
  id: string;
  sequence: number;
  chain: string;
  prev: string | null;
  leafIndex: number | null;
};

export type SessionRef = { hostId: string; sessionId: string };

export function describeRecord(e: { line: number; id: string }, s: SessionRef, sequence: number) {
  return `line ${e.line}: record ${e.id} (session ${s.sessionId}, sequence ${sequence})`;
}

function at(e: SessionEntry, s: SessionRef) {
  return {
    recordId: e.id,
    hostId: s.hostId,
    sessionId: s.sessionId,
    sequence: e.sequence,
    leafIndex: e.leafIndex,
  };
}

/** Checks that need no completeness: a sequence or a chain link used twice cannot come from ingest. */
export function checkDuplicates(s: SessionRef, entries: SessionEntry[]): IntegrityFinding[] {
  const out: IntegrityFinding[] = [];
  const bySequence = new Map<number, SessionEntry>();
  const byPrev = new Map<string, SessionEntry>();
  for (const e of entries) {
    const same = bySequence.get(e.sequence);
    if (same) {
      out.push(
        finding(
          'forged',
          'record',
          `${describeRecord(e, s, e.sequence)}: forged — sequence ${e.sequence} is also record ${same.id} (line ${same.line}); ingest stores a sequence once`,
          at(e, s),
        ),
      );
    } else bySequence.set(e.sequence, e);
    const prevKey = e.prev ?? '';
    const fork = byPrev.get(prevKey);
    if (fork) {
      out.push(
        finding(
          'forged',
          'record',
          `${describeRecord(e, s, e.sequence)}: forged — chained to the same previous link as record ${fork.id} (line ${fork.line}); a session's chain does not fork`,
          at(e, s),
        ),
      );
    } else byPrev.set(prevKey, e);
  }
  return out;
}

/**
 * A session the export holds completely: the links must form one chain from
 * its first record, without sequence holes, ending at the chain head.
 */
export function checkCompleteSession(
  s: SessionRef,
  entries: SessionEntry[],
  head: ExportChainHead | null,
): IntegrityFinding[] {
  const out: IntegrityFinding[] = [];
  const named = new Set<SessionEntry>();
  const sessionAt = { hostId: s.hostId, sessionId: s.sessionId };
  if (!head) {
    if (entries.length > 0) {
      out.push(
        finding(
          'forged',
          'session',
          `session ${s.sessionId}: forged — ${entries.length} records but no chain head: they were not stored by ingest`,
          sessionAt,
        ),
      );
    }
    return out;
  }
  const byChain = new Map<string, SessionEntry>();
  const byPrev = new Map<string, SessionEntry>();
  for (const e of entries) {
    if (!byChain.has(e.chain)) byChain.set(e.chain, e);
    if (!byPrev.has(e.prev ?? '')) byPrev.set(e.prev ?? '', e);
  }
  // Walk the chain from its first link; whatever it does not reach hangs off a missing record.
  const reached = new Set<SessionEntry>();
  let last: SessionEntry | undefined;
  for (let e = byPrev.get(''); e && !reached.has(e); e = byPrev.get(e.chain)) {
    reached.add(e);
    last = e;
  }
  // Holes in the sequences first: a deleted record is named by its own sequence.
  out.push(...sequenceHoles(s, entries, named));
  for (const e of entries) {
    // A second first link is a fork, which checkDuplicates names; a record
    // right after a hole is already named by the hole.
    if (named.has(e) || reached.has(e) || e.prev === null || byChain.has(e.prev)) continue;
    named.add(e);
    out.push(
      finding(
        'missing',
        'record',
        `${describeRecord(e, s, e.sequence)}: missing — the record it is chained to (link ${e.prev.slice(0, 12)}…) is not in the export`,
        at(e, s),
      ),
    );
  }
  const headEntry = byChain.get(head.head_hash);
  if (!headEntry) {
    const tail = last ?? entries.at(-1);
    // The first record gone is named by its sequence (its id went with it).
    const first = tail ? Math.max(maxSequence(entries), tail.sequence) + 1 : 0;
    const gone =
      head.last_sequence > first
        ? `sequences ${first}–${head.last_sequence} are`
        : `sequence ${first} is`;
    out.push(
      finding(
        'truncated',
        'session',
        `session ${s.sessionId}: truncated — ${gone} not in the export: it ends ${tail ? `at record ${tail.id} (line ${tail.line}, sequence ${tail.sequence})` : 'with no record'} but the session's chain head counts ${head.record_count} records up to sequence ${head.last_sequence}`,
        { ...sessionAt, sequence: first },
      ),
    );
  } else if (entries.length > head.record_count) {
    out.push(
      finding(
        'forged',
        'session',
        `session ${s.sessionId}: forged — ${entries.length} records but the chain head counts ${head.record_count}`,
        sessionAt,
      ),
    );
  } else if (entries.length < head.record_count && named.size === 0) {
    out.push(
      finding(
        'missing',
        'session',
        `session ${s.sessionId}: missing — ${head.record_count - entries.length} of the ${head.record_count} records the chain head counts are not in the export`,
        sessionAt,
      ),
    );
  } else if (
    named.size === 0 &&
    (last !== headEntry || maxSequence(entries) !== head.last_sequence)
  ) {
    out.push(
      finding(
        'out_of_order',
        'record',
        `${describeRecord(headEntry, s, headEntry.sequence)}: out_of_order — the chain does not end at the session's chain head (sequence ${head.last_sequence})`,
        at(headEntry, s),
      ),
    );
  }
  return out;
}

function maxSequence(entries: SessionEntry[]): number {
  let max = -1;
  for (const e of entries) if (e.sequence > max) max = e.sequence;
  return max;
}

/**
 * Holes in the session's sequences (one before the first if it is not 0):
 * each named by its first missing sequence (the records' ids went with
 * them), with the record after it for orientation.
 */
function sequenceHoles(
  s: SessionRef,
  entries: SessionEntry[],
  named: Set<SessionEntry>,
): IntegrityFinding[] {
  const sorted = [...entries].sort((a, b) => a.sequence - b.sequence);
  const out: IntegrityFinding[] = [];
  let expected = 0;
  for (const e of sorted) {
    if (e.sequence > expected && !named.has(e)) {
      const range =
        e.sequence - 1 === expected
          ? `sequence ${expected} is`
          : `sequences ${expected}–${e.sequence - 1} are`;
      named.add(e);
      out.push(
        finding(
          'missing',
          'record',
          `session ${s.sessionId}: missing — ${range} not in the export (before ${describeRecord(e, s, e.sequence)})`,
          { hostId: s.hostId, sessionId: s.sessionId, sequence: expected },
        ),
      );
    }
    expected = Math.max(expected, e.sequence + 1);
  }
  return out;
}
