import 'server-only';
import { decodeProtectedHeader } from 'jose';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { toHex } from '@/lib/proof';
import { SIGNING_ALG } from '@/lib/server/signing/key-material';
import { signJws } from '@/lib/server/signing/jws';
import { publishTreeHead } from './publish-head';
import { logSize, storedRoot } from './store';

/**
 * Signed tree heads (issue 13 item 3): the log's size and root hash at a
 * moment, signed with the deployment's key. The JWS payload is the RFC 8785
 * canonical JSON of
 *   {size, root_hash: lowercase hex MTH, timestamp: ms since epoch, kid}
 * with protected header {alg: 'EdDSA', kid, typ: 'checkpoint-tree-head+jws'}.
 * Hex, like every other hash the app shows (chain hashes, content hashes).
 * One head per size (the table's key): signing again at an unchanged size
 * answers the stored one, so heads never disagree about a size.
 */

export const TREE_HEAD_TYP = 'checkpoint-tree-head+jws';

export type TreeHeadPayload = { size: number; root_hash: string; timestamp: number; kid: string };
export type TreeHead = TreeHeadPayload & { jws: string };

type Row = { size: string; rootHash: string; timestamp: string; kid: string; jws: string };

function fromRow(row: Row): TreeHead {
  return {
    size: Number(row.size),
    root_hash: row.rootHash,
    timestamp: Number(row.timestamp),
    kid: row.kid,
    jws: row.jws,
  };
}

// Epoch milliseconds computed in SQL (the column has no zone; a driver would apply the process's).
const SELECT = `SELECT size::text AS size, "rootHash",
  (extract(epoch FROM timestamp) * 1000)::bigint::text AS timestamp, kid, jws FROM "TreeHead"`;

/** The newest signed tree head, or null before the first. */
export async function latestTreeHead(prisma: PrismaClient): Promise<TreeHead | null> {
  const rows = await prisma.$queryRawUnsafe<Row[]>(`${SELECT} ORDER BY size DESC LIMIT 1`);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** The signed tree head of exactly `size` leaves, or null when none was issued at that size. */
export async function treeHeadAt(prisma: PrismaClient, size: number): Promise<TreeHead | null> {
  const rows = await prisma.$queryRawUnsafe<Row[]>(`${SELECT} WHERE size = $1::bigint`, size);
  return rows[0] ? fromRow(rows[0]) : null;
}

async function activeKid(prisma: PrismaClient): Promise<string> {
  const row = await prisma.signingKey.findFirst({
    where: { alg: SIGNING_ALG, retiredAt: null },
    select: { kid: true },
  });
  return row?.kid ?? '';
}

let lastKid: string | undefined;

/**
 * Signs the payload naming the key that signs it. signJws picks the key (and
 * keeps it a few seconds, so just after a rotation it may still be the old
 * one, which stays published): the kid is guessed, and when the signature's
 * header names another key the head is signed again naming that one.
 */
async function signHead(
  prisma: PrismaClient,
  size: number,
  rootHash: string,
): Promise<{ payload: TreeHeadPayload; jws: string }> {
  let kid = lastKid ?? (await activeKid(prisma));
  for (let attempt = 0; attempt < 3; attempt++) {
    const payload = { size, root_hash: rootHash, timestamp: Date.now(), kid };
    const jws = await signJws(payload, { typ: TREE_HEAD_TYP });
    const signedBy = decodeProtectedHeader(jws).kid ?? '';
    if (signedBy === kid) {
      lastKid = kid;
      return { payload, jws };
    }
    kid = signedBy;
  }
  throw new Error('tree head: the signing key kept changing while signing');
}

/**
 * Issues a tree head for the log's current size: answers the stored head
 * when the size has not changed, and with `minIntervalMs` answers null when
 * the newest head is younger than that (the periodic schedule). Needs no
 * lock: the perfect subtrees of a committed size never change, and two
 * processes signing the same size store one head (the first insert).
 */
export async function issueTreeHead(
  prisma: PrismaClient,
  opts: { minIntervalMs?: number } = {},
): Promise<TreeHead | null> {
  const size = await logSize(prisma);
  const latest = await latestTreeHead(prisma);
  if (latest && latest.size >= size) return latest;
  if (latest && opts.minIntervalMs && Date.now() - latest.timestamp < opts.minIntervalMs) {
    return null;
  }
  const root = toHex(await storedRoot(prisma, size));
  const { payload, jws } = await signHead(prisma, size, root);
  const inserted = await prisma.$executeRawUnsafe(
    `INSERT INTO "TreeHead" (size, "rootHash", timestamp, kid, jws)
     VALUES ($1::bigint, $2, $3::timestamp(3), $4, $5) ON CONFLICT (size) DO NOTHING`,
    size,
    root,
    new Date(payload.timestamp).toISOString(),
    payload.kid,
    jws,
  );
  const head = await treeHeadAt(prisma, size);
  // The issuing process copies the head outside the database (local file, witnesses).
  if (inserted > 0 && head) await publishTreeHead(prisma, head);
  return head;
}
