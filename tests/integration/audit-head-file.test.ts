import { appendFileSync, readFileSync } from 'node:fs';
import { CompactSign, decodeProtectedHeader, generateKeyPair } from 'jose';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { fileHeadProblem } from '@/lib/server/audit/integrity-head-file';
import { checkTreeHead } from '@/lib/server/audit/integrity-head';
import { publicJwks, signJws } from '@/lib/server/signing/jws';
import { ensureSigningKey } from '@/lib/server/signing/keys';
import { treeHeadFilePath } from '@/lib/server/transparency/publish-head';
import { issueTreeHead, latestTreeHead, TREE_HEAD_TYP } from '@/lib/server/transparency/tree-head';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

/**
 * The audit pages' tree head against the local tree-head file (issue 13
 * item 4): a database shell can replace the newest head, or remove heads,
 * consistently with every table, but not the copies in the file. Each test
 * starts from an empty log (size 0), whose head is issued and copied here.
 */

const OTHER_ROOT = 'ab'.repeat(32);

/** A head this deployment signed (the active key), as the file holds it. */
async function signedLine(size: number, rootHash: string): Promise<string> {
  const timestamp = Date.now();
  const prisma = await testDb();
  const { kid } = await ensureSigningKey(prisma, null);
  const payload = { size, root_hash: rootHash, timestamp, kid };
  const jws = await signJws(payload, { typ: TREE_HEAD_TYP });
  expect(decodeProtectedHeader(jws).kid).toBe(kid);
  return `${JSON.stringify({ ...payload, jws })}\n`;
}

beforeEach(async () => {
  await truncateAll();
  await ensureSigningKey(await testDb(), null);
});
afterAll(async () => {
  await truncateAll();
  await closeTestDb();
});

describe('the newest tree head against the tree-head file', () => {
  it('agrees when the file holds what the database holds (the head just issued)', async () => {
    const prisma = await testDb();
    const head = await issueTreeHead(prisma);
    expect(head?.size).toBe(0);
    expect(readFileSync(treeHeadFilePath(), 'utf8')).toContain(head?.jws);
    const checked = await checkTreeHead(prisma, head);
    expect(checked.valid).toBe(true);
  });

  it('a head of the same size with another root in the file: the database head was replaced', async () => {
    const prisma = await testDb();
    const head = await issueTreeHead(prisma);
    appendFileSync(treeHeadFilePath(), await signedLine(0, OTHER_ROOT));
    const checked = await checkTreeHead(prisma, head);
    expect(checked.valid === false && checked.finding).toMatchObject({
      problem: 'tree_head_invalid',
      subject: 'tree_head',
      detail: expect.stringMatching(/size 0 .*tree-head file holds a head of size 0 with root ab/),
    });
  });

  it('a larger head in the file than in the database: heads were removed', async () => {
    const prisma = await testDb();
    const head = await issueTreeHead(prisma);
    appendFileSync(treeHeadFilePath(), await signedLine(7, OTHER_ROOT));
    const checked = await checkTreeHead(prisma, head);
    expect(checked.valid === false && checked.finding).toMatchObject({
      problem: 'inconsistent',
      detail: expect.stringContaining('holds a signed head of size 7'),
    });
    // Every head deleted: the file still tells.
    await prisma.$executeRawUnsafe(`DELETE FROM "TreeHead"`);
    expect(await latestTreeHead(prisma)).toBeNull();
    const none = await checkTreeHead(prisma, null);
    expect(none.valid === false && none.finding).toMatchObject({
      problem: 'inconsistent',
      detail: expect.stringContaining('The database holds no signed tree head'),
    });
  });

  it('ignores lines this deployment did not sign, and a larger head stored since it was read', async () => {
    const prisma = await testDb();
    const head = await issueTreeHead(prisma);
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const stranger = { size: 9, root_hash: OTHER_ROOT, timestamp: Date.now(), kid: 'x' };
    const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(stranger)))
      .setProtectedHeader({ alg: 'EdDSA', kid: 'x', typ: TREE_HEAD_TYP })
      .sign(privateKey);
    appendFileSync(treeHeadFilePath(), `${JSON.stringify({ ...stranger, jws })}\nnot json\n`);
    expect((await checkTreeHead(prisma, head)).valid).toBe(true);
    // A newer head issued while a page loads: in the file and in the database, not a loss.
    const line = await signedLine(4, OTHER_ROOT);
    appendFileSync(treeHeadFilePath(), line);
    const h = JSON.parse(line);
    await prisma.$executeRawUnsafe(
      `INSERT INTO "TreeHead" (size, "rootHash", timestamp, kid, jws)
       VALUES (4, $1, now(), $2, $3)`,
      h.root_hash,
      h.kid,
      h.jws,
    );
    expect(await fileHeadProblem(prisma, head, await publicJwks())).toBeNull();
  });
});
