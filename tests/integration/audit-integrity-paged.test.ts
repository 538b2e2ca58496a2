import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntegrityStatus, VerifierNote } from '@/app/audit/sessions/[id]/chain-status';
import type { SessionIntegrity } from '@/lib/server/audit/integrity';
import { getSessionTimeline, type SessionTimeline } from '@/lib/server/audit/timeline';
import { ingestRecords } from '@/lib/server/records/ingest';
import { appendAll } from '@/lib/server/transparency/append';
import { issueTreeHead } from '@/lib/server/transparency/tree-head';
import { runLogVerification } from '@/lib/server/transparency/verify-run';
import { isFailure } from '@/lib/verify/findings';
import { seedHostRow, seedUser } from './audit-seed';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { makeRecord } from './records-fixtures';

/**
 * Issue 16 item 3 with issue 13 item 4: a session larger than one timeline
 * page (500 records) is checked in full only for the page shown, while its
 * structure (sequence holes, links between stored rows, chain head) is
 * checked whole on every page. So an altered record on page 2 is named when
 * page 2 is viewed, page 1 says what it did not re-check, and a record
 * deleted from page 3 is named from page 1. Seeded through the real ingest
 * service and appender.
 */

type Actor = { id: string; roles: ('admin' | 'reviewer' | 'auditor')[] };

const SIZE = 1_200;
let auditor: Actor;
let host: string;

async function seed(sessionId: string) {
  for (let i = 0; i < SIZE; i += 400) {
    await ingestRecords(
      host,
      Array.from({ length: 400 }, (_, k) => makeRecord(sessionId, i + k)),
    );
  }
}

async function idOf(sessionId: string, sequence: number): Promise<string> {
  const prisma = await testDb();
  const rows = await prisma.$queryRawUnsafe<{ id: string }[]>(
    `SELECT id::text AS id FROM "InterceptionRecord" WHERE "sessionId" = $1 AND sequence = $2`,
    sessionId,
    sequence,
  );
  return rows[0]?.id as string;
}

async function page(sessionId: string, after?: number) {
  // Pages of 500, the most a caller may ask for (the page itself shows fewer).
  const t: SessionTimeline = await getSessionTimeline(auditor, {
    sessionId,
    hostId: host,
    after,
    limit: 500,
  });
  if (t.kind !== 'timeline') throw new Error(`expected a timeline, got ${t.kind}`);
  if ('error' in t.integrity) throw new Error(t.integrity.error);
  return { t, integrity: t.integrity as SessionIntegrity };
}

/** A component as the page renders it, tags stripped. */
function textOf(
  component: typeof IntegrityStatus | typeof VerifierNote,
  integrity: SessionIntegrity,
) {
  return renderToStaticMarkup(createElement(component, { integrity }))
    .replace(/<[^>]+>/g, '')
    .replaceAll('&quot;', '"');
}

let altered: string;
let beforeHole: string;
let afterHole: string;
let holeId: string;
let movedA: string;
let movedB: string;

beforeAll(async () => {
  await truncateAll();
  auditor = (await seedUser('aud-paged@example.com', ['auditor'])) as Actor;
  host = await seedHostRow('paged-host');
  await seed('alter');
  await seed('hole');
  await seed('clean');
  await seed('moved');
  const prisma = await testDb();
  await appendAll(prisma);
  await issueTreeHead(prisma);
  altered = await idOf('alter', 700);
  await prisma.$executeRawUnsafe(
    `UPDATE "InterceptionRecord" SET record = jsonb_set(record::jsonb, '{interceptors_registered}', '9')
     WHERE id = $1::bigint`,
    altered,
  );
  [beforeHole, holeId, afterHole] = await Promise.all(
    [1_099, 1_100, 1_101].map((s) => idOf('hole', s)),
  );
  await prisma.$executeRawUnsafe(`DELETE FROM "InterceptionRecord" WHERE id = $1::bigint`, holeId);
  // Two rows of page 3 trade ids: contents and leaves intact, the chain (id order) no longer runs.
  [movedA, movedB] = await Promise.all([1_000, 1_001].map((s) => idOf('moved', s)));
  await prisma.$executeRawUnsafe(
    `UPDATE "InterceptionRecord" SET id = -1 WHERE id = $1::bigint`,
    movedA,
  );
  await prisma.$executeRawUnsafe(
    `UPDATE "InterceptionRecord" SET id = $1::bigint WHERE id = $2::bigint`,
    movedA,
    movedB,
  );
  await prisma.$executeRawUnsafe(
    `UPDATE "InterceptionRecord" SET id = $1::bigint WHERE id = -1`,
    movedB,
  );
}, 120_000);
afterAll(closeTestDb);

describe('a session larger than one page', () => {
  it('page 1 checks its 500 records in full and the whole chain structurally, and says so', async () => {
    const { t, integrity } = await page('clean');
    expect(t.entries).toHaveLength(500);
    expect(integrity.ok).toBe(true);
    expect(integrity.findings).toEqual([]);
    expect(integrity.checkedRecords).toBe(500);
    expect(integrity.scope).toEqual({
      sessionRecords: SIZE,
      firstPosition: 1,
      lastPosition: 500,
      firstSequence: 0,
      lastSequence: 499,
      complete: false,
    });
    expect(integrity.chain).toStrictEqual({
      ok: true,
      checked: SIZE,
      firstBrokenSequence: null,
      gaps: [],
    });
    const text = textOf(IntegrityStatus, integrity);
    expect(text).toMatch(
      /^Records 1–500 \(sequences 0–499\) of 1,200 verified against signed tree head #\d+ /,
    );
    expect(text).toContain('The whole session (1,200 records) was checked for its structure');
    expect(text).toContain('Records on other pages were not re-hashed or proved here');
    expect(text).not.toContain('the chain is intact');
  });

  it('an altered record on page 2 is not claimed verified on page 1, and is named on page 2', async () => {
    const first = await page('alter');
    expect(first.integrity.ok).toBe(true);
    expect(first.integrity.findings.filter(isFailure)).toEqual([]);
    // Page 1 does not say the whole session is verified: it names its range.
    expect(textOf(IntegrityStatus, first.integrity)).toMatch(/^Records 1–500 \(sequences 0–499\)/);

    const second = await page('alter', 499);
    expect(second.t.entries[0]?.sequence).toBe(500);
    expect(second.integrity.scope).toMatchObject({ firstPosition: 501, lastPosition: 1_000 });
    expect(second.integrity.ok).toBe(false);
    expect(second.integrity.findings.filter(isFailure)).toEqual([
      expect.objectContaining({
        problem: 'altered',
        recordId: altered,
        sequence: 700,
        detail: expect.stringMatching(/no longer hashes to its leaf \d+ in the log/),
      }),
    ]);
    expect(second.integrity.chain).toMatchObject({ ok: false, firstBrokenSequence: 700 });
    const text = textOf(IntegrityStatus, second.integrity);
    expect(text).toMatch(/^1 problem checking records 501–1,000 \(sequences 500–999\) of 1,200/);
  });

  it('a record deleted from page 3 is named (a hole) on page 1', async () => {
    const { integrity } = await page('hole');
    expect(integrity.ok).toBe(false);
    expect(integrity.scope.sessionRecords).toBe(SIZE - 1);
    expect(integrity.findings.filter(isFailure)).toEqual([
      expect.objectContaining({
        problem: 'missing',
        sequence: 1_100,
        detail: `Sequence 1100 of session hole is missing, after record ${beforeHole} (sequence 1099) and before record ${afterHole} (sequence 1101).`,
      }),
    ]);
    const text = textOf(IntegrityStatus, integrity);
    expect(text).toMatch(/^1 problem checking records 1–500 /);
    expect(text).toContain('Sequence 1100 of session hole is missing');
  });

  it('rows of page 3 moved in the chain are named on page 1 (their links no longer hold)', async () => {
    const { integrity } = await page('moved');
    expect(integrity.ok).toBe(false);
    expect(
      integrity.findings.filter(isFailure).map((f) => [f.problem, f.recordId, f.sequence]),
    ).toEqual([
      ['out_of_order', movedA, 1_001],
      ['out_of_order', movedB, 1_000],
    ]);
    expect(integrity.chain).toMatchObject({ ok: false, firstBrokenSequence: 1_001 });
    expect(textOf(IntegrityStatus, integrity)).toMatch(/^2 problems checking records 1–500 /);
  });

  it("the background verifier's run is shown, with its failures in this session", async () => {
    const before = await page('clean');
    expect(textOf(VerifierNote, before.integrity)).toBe(
      'The background verifier has not checked the whole log yet.',
    );
    const prisma = await testDb();
    const run = await runLogVerification(prisma, 'manual');
    expect(run?.ok).toBe(false);
    const { integrity } = await page('alter');
    expect(integrity.verifier).toMatchObject({ ok: false });
    expect(integrity.verifier?.sessionFailures).toEqual([
      expect.objectContaining({ problem: 'altered', recordId: altered }),
    ]);
    const text = textOf(VerifierNote, integrity);
    expect(text).toMatch(
      /^The whole log was last verified by the background verifier at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \([\d,]+ of [\d,]+ leaves\): \d+ problems?, 1 of those it stored in this session:/,
    );
    expect(text).toContain(`record ${altered} (host ${host}, session "alter", sequence 700)`);
    // A clean session says the run's problems are elsewhere.
    expect(textOf(VerifierNote, (await page('clean')).integrity)).toContain(
      'none of those it stored in this session',
    );
  });
});

describe('records that arrived out of order', () => {
  it('a lower sequence ingested after a higher one is chained where it arrived: no finding', async () => {
    // Parallel tool calls finish out of order: ingest appends sequence 2
    // after 3 (records/ingest.ts). Its link and its leaf hold, so it is where
    // ingest chained it; a sequence lower than the one before it is no sign
    // of tampering on its own.
    await ingestRecords(
      host,
      [0, 1, 3].map((i) => makeRecord('late', i)),
    );
    await ingestRecords(host, [makeRecord('late', 2)]);
    const prisma = await testDb();
    await appendAll(prisma);
    await issueTreeHead(prisma);
    const { t, integrity } = await page('late');
    expect(t.entries.map((e) => e.sequence)).toEqual([0, 1, 2, 3]);
    expect(integrity.findings).toEqual([]);
    expect(integrity.ok).toBe(true);
    expect(integrity.chain).toStrictEqual({
      ok: true,
      checked: 4,
      firstBrokenSequence: null,
      gaps: [],
    });
  });
});
