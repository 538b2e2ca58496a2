import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filtersToParams, parseAuditFilters } from '@/lib/server/audit/filters';
import { countRows, searchRecords } from '@/lib/server/audit/search';
import { ApiError } from '@/lib/server/http/api-error';
import { insertRows, seedHostRow, seedUser } from './audit-seed';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

/**
 * SQL injection regression (issue 11, "keep them holding"): every text an
 * auditor can put in the search URL reaches PostgreSQL as a bound value, so
 * quoting, comment and wildcard tricks match only themselves, literally,
 * and never change which rows or tables the query touches.
 */

const HOSTILE = [
  "x' OR '1'='1",
  'x\'; DROP TABLE "InterceptionRecord"; --',
  'x" OR "1"="1',
  '\') UNION SELECT * FROM "User" --',
  '%',
  '_',
  '\\',
  "$1' OR 1=1 --",
];

describe('audit search: hostile filter text is data, never SQL', () => {
  let auditor: { id: string; roles: ('auditor' | 'admin' | 'reviewer')[] };
  let total: number;
  let literalId: string;

  beforeAll(async () => {
    await truncateAll();
    auditor = (await seedUser('aud-inj@example.com', ['auditor'])) as typeof auditor;
    const host = await seedHostRow('host-inj');
    const at = (m: number) => new Date(Date.parse('2026-11-30T12:00:00Z') + m * 60_000);
    const ids = await insertRows(host, [
      { sessionId: 'plain', decision: 'deny', reason: 'policy', receivedAt: at(0), agentId: 'a' },
      { sessionId: 'other', decision: 'allow', receivedAt: at(1), agentId: 'b' },
      // One row whose values are themselves hostile: it must be found by exactly its text.
      {
        sessionId: HOSTILE[0],
        decision: 'deny',
        reason: HOSTILE[1],
        receivedAt: at(2),
        agentId: HOSTILE[3],
      },
    ]);
    literalId = ids[2] as string;
    total = ids.length;
  });
  afterAll(closeTestDb);

  for (const text of HOSTILE) {
    it(`session, agent and reason filters treat ${JSON.stringify(text)} literally`, async () => {
      const filters = parseAuditFilters({ session: text, agent: text, reason: text });
      // The parser keeps the text as-is (no escaping that could be undone later).
      expect(filters).toMatchObject({ sessionId: text, agentId: text, reasonPrefix: text });
      for (const one of [{ sessionId: text }, { agentId: text }, { reasonPrefix: text }]) {
        const page = await searchRecords(auditor, one);
        const expected =
          one.sessionId === HOSTILE[0] ||
          one.agentId === HOSTILE[3] ||
          (one.reasonPrefix !== undefined && HOSTILE[1].startsWith(one.reasonPrefix))
            ? [literalId]
            : [];
        expect(page.rows.map((r) => r.id)).toEqual(expected);
        expect(await countRows(one)).toEqual({ value: expected.length, capped: false });
      }
      // Round-trips through the URL unchanged.
      expect(parseAuditFilters(Object.fromEntries(filtersToParams(filters)))).toEqual(filters);
    });
  }

  it('after every attempt the table and its rows are intact', async () => {
    const prisma = await testDb();
    expect(await prisma.interceptionRecord.count()).toBe(total);
    expect(await prisma.user.count()).toBe(1);
  });

  it('a forged cursor is a 400 cursor_invalid, not a query', async () => {
    for (const cursor of ["' OR 1=1 --", 'eyJ0IjoiJyBPUiAxPTEifQ', '%00']) {
      const err = await searchRecords(auditor, {}, { cursor, limit: 10 }).catch((e) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('cursor_invalid');
    }
  });
});
