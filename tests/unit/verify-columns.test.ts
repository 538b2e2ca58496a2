import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InterceptionRecord } from '@checkpoint/agent-hooks';
import {
  displayedColumns,
  isCanonicalIso,
  isoTimestamp,
  recordColumns,
} from '@/lib/verify/record-columns';
import { sampleRecord } from './fixtures/audit-export';

/*
 * The offline verifier derives a record's displayed columns without a Date
 * when the timestamp is already canonical; the answer must be exactly the
 * one derived through recordColumns (what the server stores) for any input.
 */

/** The derivation as it was: recordColumns, renamed, the timestamp through Date. */
function reference(record: unknown, sessionId: string, sequence: number) {
  let c: ReturnType<typeof recordColumns>;
  try {
    c = recordColumns(record as InterceptionRecord);
  } catch {
    return null;
  }
  return {
    interception_point: c.interceptionPoint ?? null,
    mode: c.mode ?? null,
    decision: c.decision ?? null,
    reason: c.reason,
    resolved_by: c.resolvedBy,
    fold_truncated: c.foldTruncated,
    decided_by: c.decidedBy,
    host_error: c.hostError,
    host_failure: sessionId === '' && sequence === -1,
    identity_provider: c.identityProvider ?? null,
    input_identity: c.inputIdentity ?? null,
    enforced_identity: c.enforcedIdentity ?? null,
    timestamp: c.timestamp?.toISOString() ?? null,
  };
}

// Years -1 to 10000: toISOString writes those outside 0–9999 with six digits and a sign.
const canonical = fc
  .integer({ min: Date.UTC(-1, 0, 1), max: Date.UTC(10000, 11, 31) })
  .map((ms) => new Date(ms).toISOString());

/** Canonical strings with one character replaced by a plausible other. */
const mutated = fc
  .tuple(canonical, fc.nat(23), fc.constantFrom(...'0123456789-:.TZtz +'.split('')))
  .map(([s, i, c]) => s.slice(0, i) + c + s.slice(i + 1));

const edges = [
  '2026-12-01T10:00:00.000Z',
  '0000-01-01T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '2024-02-29T12:00:00.000Z',
  '2000-02-29T12:00:00.000Z',
  '1900-02-29T12:00:00.000Z',
  '2026-02-29T12:00:00.000Z',
  '2026-04-31T12:00:00.000Z',
  '2026-00-10T12:00:00.000Z',
  '2026-13-10T12:00:00.000Z',
  '2026-01-00T12:00:00.000Z',
  '2026-01-32T12:00:00.000Z',
  '2026-01-01T24:00:00.000Z',
  '2026-01-01T23:60:00.000Z',
  '2026-01-01T23:59:60.000Z',
  '2026-01-01T10:00:00Z',
  '2026-01-01T10:00:00.000+00:00',
  '2026-01-01 10:00:00.000Z',
  '2026-01-01T10:00:00.000z',
  '+002026-01-01T10:00:00.000Z',
  '-000001-01-01T00:00:00.000Z',
  '2026-01-01',
  '',
  'not a date',
  '２026-01-01T10:00:00.000Z',
];

describe('displayed columns without a Date', () => {
  it('takes a timestamp as its own column exactly when Date would answer it unchanged', () => {
    const check = (s: string) => {
      const fast = isCanonicalIso(s);
      if (fast) expect(isoTimestamp(s)).toBe(s);
      expect(fast ? s : isoTimestamp(s)).toBe(isoTimestamp(s));
      return fast;
    };
    // Every timestamp of years 0–9999 as toISOString writes it is taken as it is.
    fc.assert(
      fc.property(canonical, (s) => {
        const fast = check(s);
        const year = Number(s.slice(0, 4));
        expect(fast).toBe(s.length === 24 && year >= 0);
      }),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(mutated, (s) => void check(s)),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (s) => void check(s)),
      { numRuns: 5_000 },
    );
    const fastEdges = edges.filter(check);
    expect(fastEdges).toEqual(edges.slice(0, 5));
  });

  it('derives what recordColumns derives, for readable and unreadable records alike', () => {
    const base = sampleRecord('s-1', 3, 'deny');
    const timestamps = [
      undefined,
      null,
      0,
      1_700_000_000_000,
      8.64e15 + 1,
      true,
      {},
      [],
      ['2026-01-01'],
      ...edges,
    ];
    const records: unknown[] = [
      null,
      undefined,
      5,
      'record',
      [],
      {},
      { ...base, verdict: undefined },
      { ...base, verdict: null },
      { ...base, verdict: 'allow' },
      { ...base, verdict: { decision: 'deny', reason: 7 } },
      { ...base, verdict: { decision: 'deny', reason: { code: 'x' } } },
      { ...base, verdict: { decision: 'deny', reason: null } },
      { ...base, verdict: { decision: 'deny', reason: 'host_error:timeout' } },
      { ...base, verdict: {} },
      { ...base, mode: undefined, interception_point: null, decided_by: undefined },
      { ...base, resolved_by: 'human', fold_truncated: true, identity_provider: undefined },
      ...timestamps.map((timestamp) => ({ ...base, timestamp })),
    ];
    for (const record of records) {
      for (const [sessionId, sequence] of [
        ['s-1', 3],
        ['', -1],
      ] as const) {
        expect(displayedColumns(record, sessionId, sequence)).toEqual(
          reference(record, sessionId, sequence),
        );
      }
    }
    // The cases differ: some records are unreadable, some timestamps unparseable.
    expect(displayedColumns(null, 's', 0)).toBeNull();
    expect(displayedColumns({ ...base, timestamp: 'x' }, 's', 0)?.timestamp).toBeNull();
    expect(displayedColumns({ ...base, timestamp: 0 }, 's', 0)?.timestamp).toBe(
      '1970-01-01T00:00:00.000Z',
    );
  });
});
