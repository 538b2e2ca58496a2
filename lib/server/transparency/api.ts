import 'server-only';
import { z } from 'zod';
import { db } from '@/lib/server/db';
import { invalidRequest, notFound } from '@/lib/server/http/api-error';
import type { LogReader } from './access';
import {
  type ConsistencyProof,
  consistencyProof,
  type InclusionProof,
  inclusionProof,
} from './proofs';
import { logSize } from './store';
import { issueTreeHead, latestTreeHead, type TreeHead, treeHeadAt } from './tree-head';

/** The log's HTTP answers (app/api/v1/log/**): parse, check access, read. */

const size = z
  .string()
  .regex(/^\d{1,15}$/, 'a non-negative integer')
  .transform(Number);

export const treeHeadQuery = z.object({ size: size.optional() }).strict();

export const inclusionQuery = z
  .object({
    index: size.optional(),
    record: z
      .string()
      .regex(/^\d{1,19}$/, 'a record id')
      .optional(),
    decision: z.uuid().optional(),
    size: size.optional(),
  })
  .strict()
  .refine((q) => [q.index, q.record, q.decision].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of index, record, decision',
  });

export const consistencyQuery = z.object({ from: size, to: size }).strict();

/** The newest tree head (one is signed on demand when the log has none), or the one of `size`. */
export async function getTreeHead(query: z.infer<typeof treeHeadQuery>): Promise<TreeHead> {
  const prisma = await db();
  if (query.size !== undefined) {
    const head = await treeHeadAt(prisma, query.size);
    if (!head) throw notFound(`A signed tree head of size ${query.size}`);
    return head;
  }
  const head = (await latestTreeHead(prisma)) ?? (await issueTreeHead(prisma));
  if (!head) throw notFound('The tree head');
  return head;
}

type Leaf = { index: string; kind: string; refId: string; hostId: string | null };

async function findLeaf(q: z.infer<typeof inclusionQuery>): Promise<Leaf | null> {
  const prisma = await db();
  const where =
    q.index !== undefined
      ? { sql: `l."index" = $1::bigint`, arg: q.index as number | string }
      : q.record !== undefined
        ? { sql: `l.kind = 'record' AND l."refId" = $1`, arg: q.record }
        : { sql: `l.kind = 'decision' AND l."refId" = $1`, arg: q.decision as string };
  const rows = await prisma.$queryRawUnsafe<Leaf[]>(
    `SELECT l."index"::text AS "index", l.kind, l."refId",
       COALESCE(r."hostId", t."hostId")::text AS "hostId"
     FROM "LogLeaf" l
     LEFT JOIN "InterceptionRecord" r
       ON r.id = CASE WHEN l.kind = 'record' THEN l."refId"::bigint END
     LEFT JOIN "Decision" d ON d.id = CASE WHEN l.kind = 'decision' THEN l."refId"::uuid END
     LEFT JOIN "ApprovalTicket" t ON t.id = d."ticketId"
     WHERE ${where.sql}`,
    where.arg,
  );
  return rows[0] ?? null;
}

export type InclusionAnswer = InclusionProof & {
  kind: string;
  ref_id: string;
  tree_head: TreeHead;
};

/**
 * The inclusion proof of one leaf against a signed tree head: the one of
 * `size`, or the newest; a leaf newer than the newest head gets a head
 * signed on demand, so a freshly logged record is provable at once.
 */
export async function getInclusion(
  reader: LogReader,
  q: z.infer<typeof inclusionQuery>,
): Promise<InclusionAnswer> {
  const leaf = await findLeaf(q);
  // Another host's leaf (or a deleted record's, for a host) is not found, not forbidden.
  if (!leaf || (reader.kind === 'host' && leaf.hostId !== reader.hostId)) {
    throw notFound(q.index !== undefined ? `Leaf ${q.index}` : 'The logged record or decision');
  }
  const index = Number(leaf.index);
  const prisma = await db();
  let head: TreeHead | null;
  if (q.size !== undefined) {
    head = await treeHeadAt(prisma, q.size);
    if (!head) throw notFound(`A signed tree head of size ${q.size}`);
  } else {
    head = await latestTreeHead(prisma);
    if (!head || head.size <= index) head = await issueTreeHead(prisma);
  }
  if (!head || index >= head.size) {
    throw invalidRequest(`Leaf ${index} is not in the tree of size ${head?.size ?? 0}.`);
  }
  const proof = await inclusionProof(prisma, index, head.size);
  return { ...proof, kind: leaf.kind, ref_id: leaf.refId, tree_head: head };
}

/** PROOF(from, to) between two committed sizes (0 < from ≤ to ≤ the log's size). */
export async function getConsistency(
  q: z.infer<typeof consistencyQuery>,
): Promise<ConsistencyProof> {
  const prisma = await db();
  const logged = await logSize(prisma);
  if (q.from < 1 || q.from > q.to || q.to > logged) {
    throw invalidRequest(
      `A consistency proof needs 0 < from ≤ to ≤ ${logged} (the log's size); got from=${q.from}, to=${q.to}.`,
    );
  }
  return consistencyProof(prisma, q.from, q.to);
}
