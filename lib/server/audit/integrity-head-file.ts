import 'server-only';
import { open } from 'node:fs/promises';
import type { JSONWebKeySet } from 'jose';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { treeHeadFilePath } from '@/lib/server/transparency/publish-head';
import type { TreeHead } from '@/lib/server/transparency/tree-head';
import { type HeadCopy, headSignatureProblem } from '@/lib/server/transparency/verify-heads';
import { finding, type IntegrityFinding } from '@/lib/verify/findings';

/**
 * The newest stored tree head against the local tree-head file, for the
 * audit pages (the background verifier checks every line of the file; a
 * page reads only its end). Heads are appended in the order they are
 * signed, so the file's last lines hold its newest heads: a head there of
 * the same size with another root means the database's head was replaced,
 * a larger one that heads (and leaves) were removed from the database.
 * Only lines whose signature verifies with the deployment's authentic keys
 * count: a stray or damaged line is the verifier's to report, not proof.
 */

/** How much of the file's end is read: thousands of heads, a few ms. */
const TAIL_BYTES = 256 * 1024;
const MAX_LARGER = 20;

function parse(line: string): HeadCopy | null {
  try {
    const h = JSON.parse(line) as HeadCopy;
    if (!Number.isSafeInteger(h.size) || typeof h.root_hash !== 'string') return null;
    return typeof h.jws === 'string' ? h : null;
  } catch {
    return null;
  }
}

/** The heads in the file's last TAIL_BYTES (no file: none). */
async function tailHeads(file: string): Promise<HeadCopy[]> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch {
    return [];
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - TAIL_BYTES);
    const buf = Buffer.alloc(size - start);
    await handle.read(buf, 0, buf.length, start);
    const lines = buf.toString('utf8').split('\n');
    // A read that starts mid-file starts mid-line.
    if (start > 0) lines.shift();
    return lines.flatMap((l) => {
      const h = l.trim() === '' ? null : parse(l);
      return h ? [h] : [];
    });
  } finally {
    await handle.close();
  }
}

async function genuine(h: HeadCopy, jwks: JSONWebKeySet): Promise<boolean> {
  return (await headSignatureProblem(h, jwks)) === null;
}

/**
 * A finding when the file contradicts `latest` (the newest stored head, or
 * null when the database has none), else null.
 */
export async function fileHeadProblem(
  prisma: PrismaClient,
  latest: TreeHead | null,
  jwks: JSONWebKeySet,
  file: string = treeHeadFilePath(),
): Promise<IntegrityFinding | null> {
  const heads = await tailHeads(file);
  const size = latest?.size ?? -1;
  for (const h of heads) {
    if (h.size !== size || h.root_hash === latest?.root_hash) continue;
    if (!(await genuine(h, jwks))) continue;
    return finding(
      'tree_head_invalid',
      'tree_head',
      `The signed tree head of size ${size} (key ${latest?.kid || 'none'}) is not the one this deployment signed: the tree-head file holds a head of size ${h.size} with root ${h.root_hash}, the database one with root ${latest?.root_hash}.`,
    );
  }
  // Largest first, a few: one genuine head is enough, and debris is not worth a long search.
  const larger = heads
    .filter((h) => h.size > size)
    .sort((a, b) => b.size - a.size)
    .slice(0, MAX_LARGER);
  for (const h of larger) {
    if (!(await genuine(h, jwks))) continue;
    // Signed and stored since `latest` was read (heads are issued while pages load): not a loss.
    const [stored] = await prisma.$queryRawUnsafe<{ rootHash: string }[]>(
      `SELECT "rootHash" FROM "TreeHead" WHERE size = $1::bigint`,
      h.size,
    );
    if (stored?.rootHash === h.root_hash) return null;
    return finding(
      'inconsistent',
      'tree_head',
      latest
        ? `The newest signed tree head in the database has size ${size}, but the tree-head file holds a signed head of size ${h.size}: heads or leaves were removed from the database.`
        : `The database holds no signed tree head, but the tree-head file holds a signed head of size ${h.size}: heads or leaves were removed from the database.`,
    );
  }
  return null;
}
