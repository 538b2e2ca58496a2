import { CompactSign, exportJWK, generateKeyPair } from 'jose';
import { canonicalJson } from '@checkpoint/agent-hooks';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { checkRecordIntegrity, checkSessionIntegrity } from '@/lib/server/audit/integrity';
import { ingestRecords } from '@/lib/server/records/ingest';
import { appendAll } from '@/lib/server/transparency/append';
import { issueTreeHead, TREE_HEAD_TYP } from '@/lib/server/transparency/tree-head';
import { seedHostRow } from './audit-seed';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import type { IntegrityFinding } from '@/lib/verify/findings';
import { makeRecord } from './records-fixtures';

/**
 * Issue 13 item 4 on the timeline and record pages: a session is verified
 * against the transparency log (each row against its leaf, each leaf's
 * inclusion proof against a verified signed tree head, the chain against its
 * head), and each tampering is named: which record, which problem, how.
 */

let host: string;

/** A logged session of `n` records with a signed tree head over them. */
async function seedSession(
  sessionId: string,
  n = 10,
  over: (i: number) => Record<string, unknown> = () => ({}),
) {
  await ingestRecords(
    host,
    Array.from({ length: n }, (_, i) => makeRecord(sessionId, i, over(i))),
  );
  const prisma = await testDb();
  await appendAll(prisma);
  await issueTreeHead(prisma);
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

async function sql(query: string, ...args: unknown[]) {
  const prisma = await testDb();
  await prisma.$executeRawUnsafe(query, ...args);
}

const failures = (r: { findings: IntegrityFinding[] }) =>
  r.findings.filter((f) => f.problem !== 'not_logged');

beforeEach(async () => {
  await truncateAll();
  host = await seedHostRow('integrity-host');
});
afterAll(closeTestDb);

describe('checkSessionIntegrity', () => {
  it('a clean session verifies against the signed tree head, every record proved', async () => {
    await seedSession('clean');
    const r = await checkSessionIntegrity(host, 'clean');
    expect(r.findings).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.checkedRecords).toBe(10);
    expect(r.treeHead).toMatchObject({ size: 10 });
    expect(r.treeHead?.kid).toMatch(/.+/);
  });

  it('records logged after the newest head get a head signed on demand', async () => {
    await seedSession('early', 3);
    await ingestRecords(host, [makeRecord('early', 3), makeRecord('early', 4)]);
    await appendAll(await testDb());
    const r = await checkSessionIntegrity(host, 'early');
    expect(r.ok).toBe(true);
    expect(r.treeHead?.size).toBe(5);
  });

  it('an UPDATE of the decision column is altered, naming the record and the column', async () => {
    await seedSession('deny', 10, (i) =>
      i === 4 ? { verdict: { decision: 'deny', reason: 'destructive_tool' } } : {},
    );
    const id = await idOf('deny', 4);
    await sql(
      `UPDATE "InterceptionRecord" SET decision = 'allow', reason = NULL WHERE id = $1::bigint`,
      id,
    );
    const r = await checkSessionIntegrity(host, 'deny');
    expect(r.ok).toBe(false);
    expect(failures(r)).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ problem: 'altered', recordId: id, sequence: 4 });
    expect(r.findings[0]?.detail).toBe(
      `Record ${id} (sequence 4) altered: the decision column says allow, the record says deny; ` +
        'the reason column says nothing, the record says destructive_tool.',
    );
  });

  it('an UPDATE of the record JSON is altered: it no longer hashes to its leaf', async () => {
    await seedSession('json');
    const id = await idOf('json', 6);
    await sql(
      `UPDATE "InterceptionRecord" SET record = jsonb_set(record::jsonb, '{interceptors_registered}', '7')
       WHERE id = $1::bigint`,
      id,
    );
    const r = await checkSessionIntegrity(host, 'json');
    expect(failures(r)).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ problem: 'altered', recordId: id, sequence: 6 });
    expect(r.findings[0]?.detail).toMatch(/no longer hashes to its leaf \d+ in the log/);
  });

  it('a deleted middle record is missing, named with the records either side', async () => {
    await seedSession('middle');
    const [before, gone, after] = await Promise.all([3, 4, 5].map((s) => idOf('middle', s)));
    await sql(`DELETE FROM "InterceptionRecord" WHERE id = $1::bigint`, gone);
    const r = await checkSessionIntegrity(host, 'middle');
    expect(r.ok).toBe(false);
    // Only the hole: record 5's broken link is explained by it, not blamed on 5.
    expect(failures(r)).toEqual([
      expect.objectContaining({
        problem: 'missing',
        sequence: 4,
        detail: `Sequence 4 of session middle is missing, after record ${before} (sequence 3) and before record ${after} (sequence 5).`,
      }),
    ]);
  });

  it('a deleted tail is truncated, naming the last record and the missing sequences', async () => {
    await seedSession('tail');
    const last = await idOf('tail', 6);
    await sql(`DELETE FROM "InterceptionRecord" WHERE "sessionId" = 'tail' AND sequence >= 7`);
    const r = await checkSessionIntegrity(host, 'tail');
    expect(r.ok).toBe(false);
    expect(failures(r)).toEqual([
      expect.objectContaining({ problem: 'truncated', recordId: last, sequence: 7 }),
    ]);
    expect(r.findings[0]?.detail).toBe(
      `Session tail is truncated: it ends at record ${last} (sequence 6) but its chain head says 10 records up to sequence 9; sequences 7–9 are missing.`,
    );
  });

  it('two records with swapped sequence columns are altered (the sequence is copied from the record)', async () => {
    // The sequence column is hashed into the leaf and copied from the record
    // JSON, so a swap changes both rows' data: altered, naming the column.
    // Neither is out of order: the rows themselves stay where they were chained.
    await seedSession('swap');
    const [a, b] = await Promise.all([2, 5].map((s) => idOf('swap', s)));
    await sql(`UPDATE "InterceptionRecord" SET sequence = -100 WHERE id = $1::bigint`, a);
    await sql(`UPDATE "InterceptionRecord" SET sequence = 2 WHERE id = $1::bigint`, b);
    await sql(`UPDATE "InterceptionRecord" SET sequence = 5 WHERE id = $1::bigint`, a);
    const r = await checkSessionIntegrity(host, 'swap');
    expect(failures(r).map((f) => [f.problem, f.recordId])).toEqual([
      ['altered', a],
      ['altered', b],
    ]);
    expect(r.findings[0]?.detail).toContain('the sequence column says 5, the record says 2');
  });

  it('two rows whose ids were swapped (content intact, leaves intact) are out of order', async () => {
    await seedSession('moved');
    const [a, b] = await Promise.all([2, 3].map((s) => idOf('moved', s)));
    // Swap the rows' ids: each row keeps its content and its leaf, but the
    // chain (id order) now runs 1, 3, 2, 4.
    await sql(`UPDATE "InterceptionRecord" SET id = -1 WHERE id = $1::bigint`, a);
    await sql(`UPDATE "InterceptionRecord" SET id = $1::bigint WHERE id = $2::bigint`, a, b);
    await sql(`UPDATE "InterceptionRecord" SET id = $1::bigint WHERE id = -1`, b);
    const r = await checkSessionIntegrity(host, 'moved');
    expect(r.ok).toBe(false);
    expect(failures(r).map((f) => [f.problem, f.recordId, f.sequence])).toEqual([
      ['out_of_order', a, 3],
      ['out_of_order', b, 2],
    ]);
    expect(r.findings[0]?.detail).toBe(
      `Record ${a} (sequence 3) was moved: it is stored under id ${a} but logged at leaf 3 as record ${b}.`,
    );
  });

  it('a tree head re-signed with another key is tree_head_invalid', async () => {
    await seedSession('forged');
    const prisma = await testDb();
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const kid = `forger-${(await exportJWK(publicKey)).x?.slice(0, 8)}`;
    const [row] = await prisma.$queryRawUnsafe<{ size: string; rootHash: string; ms: string }[]>(
      `SELECT size::text AS size, "rootHash", (extract(epoch FROM timestamp) * 1000)::bigint::text AS ms
       FROM "TreeHead" ORDER BY size DESC LIMIT 1`,
    );
    const payload = {
      size: Number(row?.size),
      root_hash: row?.rootHash,
      timestamp: Number(row?.ms),
      kid,
    };
    const jws = await new CompactSign(new TextEncoder().encode(canonicalJson(payload)))
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: TREE_HEAD_TYP })
      .sign(privateKey);
    await sql(
      `UPDATE "TreeHead" SET kid = $1, jws = $2 WHERE size = $3::bigint`,
      kid,
      jws,
      row?.size,
    );
    const r = await checkSessionIntegrity(host, 'forged');
    expect(r.ok).toBe(false);
    expect(r.treeHead).toBeNull();
    expect(failures(r)).toEqual([
      expect.objectContaining({
        problem: 'tree_head_invalid',
        subject: 'tree_head',
        detail: `The signed tree head of size 10 (key ${kid}) does not verify: it is signed by a key this deployment never published.`,
      }),
    ]);
  });

  it('a row never logged past the grace is forged; a fresh one is only not yet logged', async () => {
    await seedSession('late', 3);
    await ingestRecords(host, [makeRecord('late', 3), makeRecord('late', 4)]);
    const fresh = await idOf('late', 3);
    const old = await idOf('late', 4);
    await sql(
      `UPDATE "InterceptionRecord" SET "receivedAt" = "receivedAt" - interval '1 hour' WHERE id = $1::bigint`,
      old,
    );
    const r = await checkSessionIntegrity(host, 'late');
    expect(r.findings.map((f) => [f.problem, f.recordId])).toEqual([
      ['not_logged', fresh],
      ['forged', old],
    ]);
  });
});

describe('checkRecordIntegrity', () => {
  it('a logged record: its leaf and an inclusion proof verified against the head', async () => {
    await seedSession('rec', 5);
    const r = await checkRecordIntegrity(await idOf('rec', 2));
    expect(r).toMatchObject({ ok: true, found: true, leafIndex: 2, findings: [] });
    expect(r.treeHead?.size).toBe(5);
    expect(r.proof?.path).toHaveLength(3);
  });

  it('an altered column names it; a record after a deleted one reports the hole', async () => {
    await seedSession('rec2', 5);
    const id = await idOf('rec2', 1);
    await sql(`UPDATE "InterceptionRecord" SET decision = 'deny' WHERE id = $1::bigint`, id);
    const altered = await checkRecordIntegrity(id);
    expect(altered.ok).toBe(false);
    expect(altered.proof).toBeNull();
    expect(altered.findings[0]?.detail).toBe(
      `Record ${id} (sequence 1) altered: the decision column says deny, the record says allow.`,
    );
    await sql(`DELETE FROM "InterceptionRecord" WHERE "sessionId" = 'rec2' AND sequence = 3`);
    const next = await checkRecordIntegrity(await idOf('rec2', 4));
    expect(next.findings).toEqual([expect.objectContaining({ problem: 'missing', sequence: 3 })]);
  });

  it('an unknown id is not found', async () => {
    expect(await checkRecordIntegrity('999999')).toMatchObject({ found: false });
    expect(await checkRecordIntegrity('x')).toMatchObject({ found: false });
  });
});
