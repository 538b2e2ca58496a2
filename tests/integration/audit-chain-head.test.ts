import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntegrityStatus } from '@/app/audit/sessions/[id]/chain-status';
import { getSessionTimeline, type SessionTimeline } from '@/lib/server/audit/timeline';
import { ingestRecords } from '@/lib/server/records/ingest';
import { appendAll } from '@/lib/server/transparency/append';
import { seedHostRow, seedUser } from './audit-seed';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { makeRecord } from './records-fixtures';

/**
 * Issue 13 on the session page: a session whose tail was deleted keeps every
 * remaining link intact and no sequence hole, so the page's data function
 * must carry the stored head's disagreement, and the status must say it in
 * words rather than "Verified against signed tree head".
 */

type Actor = { id: string; roles: ('admin' | 'reviewer' | 'auditor')[] };

function timeline(t: SessionTimeline) {
  if (t.kind !== 'timeline') throw new Error(`expected a timeline, got ${t.kind}`);
  return t;
}

/** The status as the page renders it, tags stripped. */
function statusOf(t: ReturnType<typeof timeline>) {
  const html = renderToStaticMarkup(createElement(IntegrityStatus, { integrity: t.integrity }));
  return { html, text: html.replace(/<[^>]+>/g, '') };
}

let auditor: Actor;
let host: string;

beforeAll(async () => {
  await truncateAll();
  auditor = (await seedUser('aud-head@example.com', ['auditor'])) as Actor;
  host = await seedHostRow('head-host');
  await ingestRecords(
    host,
    Array.from({ length: 10 }, (_, i) => makeRecord('intact', i)),
  );
  await ingestRecords(
    host,
    Array.from({ length: 10 }, (_, i) => makeRecord('cut', i)),
  );
  await ingestRecords(
    host,
    [0, 1].map((i) => makeRecord('headless', i)),
  );
  const prisma = await testDb();
  await appendAll(prisma);
  await prisma.$executeRawUnsafe(
    `DELETE FROM "InterceptionRecord" WHERE "sessionId" = 'cut' AND sequence >= 7`,
  );
  await prisma.$executeRawUnsafe(`DELETE FROM "SessionChain" WHERE "sessionId" = 'headless'`);
});
afterAll(closeTestDb);

describe('session page chain status against the stored head', () => {
  it('an untouched session is verified, with no head problem', async () => {
    const t = timeline(await getSessionTimeline(auditor, { sessionId: 'intact', hostId: host }));
    expect(t.chain).toStrictEqual({ ok: true, checked: 10, firstBrokenSequence: null, gaps: [] });
    const { html, text } = statusOf(t);
    expect(html).toContain('data-state="ok"');
    expect(text).toMatch(
      /^Verified against signed tree head #\d+ \(\d+ leaves, .+, key .+\) — 10 records, all in the log; the chain is intact\.$/,
    );
  });

  it('a deleted tail shows as truncated, with what the head expected and what was found', async () => {
    const t = timeline(await getSessionTimeline(auditor, { sessionId: 'cut', hostId: host }));
    expect(t.chain).toMatchObject({
      ok: false,
      checked: 7,
      firstBrokenSequence: null,
      gaps: [],
      head: {
        problem: 'truncated',
        expected: { lastSequence: 9, recordCount: 10 },
        found: { lastSequence: 6, recordCount: 7 },
      },
    });
    const { html, text } = statusOf(t);
    expect(html).toContain('data-state="failed"');
    expect(html).toContain('data-problems="truncated"');
    expect(html).toContain('role="alert"');
    expect(text).toMatch(
      /^1 problem checking 7 records against signed tree head #\d+ .*truncated: Session cut is truncated: it ends at record \d+ \(sequence 6\) but its chain head says 10 records up to sequence 9; sequences 7–9 are missing\.$/,
    );
    expect(text).not.toContain('Verified');
  });

  it('records without a head show the head as missing', async () => {
    const t = timeline(await getSessionTimeline(auditor, { sessionId: 'headless', hostId: host }));
    expect(t.chain).toMatchObject({ ok: false, head: { problem: 'head_missing', expected: null } });
    const { text } = statusOf(t);
    expect(text).toContain(
      'missing: Session headless has 2 records but no chain head to check them against.',
    );
    expect(text).not.toContain('Verified');
  });
});
