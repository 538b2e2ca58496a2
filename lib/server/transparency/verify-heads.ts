import 'server-only';
import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { hashFromHex, verifyConsistency } from '@/lib/proof';
import { notAuthenticDetail, type UnauthenticKey } from '@/lib/server/signing/authentic';
import { SIGNING_ALG } from '@/lib/server/signing/key-material';
import { finding, type IntegrityFinding } from '@/lib/verify/findings';
import { consistencyProof } from './proofs';
import { TREE_HEAD_TYP } from './tree-head';

/**
 * Tree heads for the background verifier (verifier.ts): the signature of a
 * head against the published keys (retired ones included), and the
 * consistency of the log with every head kept outside its tables (the
 * local tree-head file, what each witness acknowledged).
 */

/** A tree head as stored, written to the file, or sent to a witness. */
export type HeadCopy = {
  size: number;
  root_hash: string;
  timestamp?: number;
  kid?: string;
  jws: string;
};

/**
 * Why a head's JWS does not hold, or null when it does. `unauthentic`: the
 * stored keys that are not the deployment's (signing/authentic.ts), so a
 * head signed by a planted key says so rather than "no matching key".
 */
export async function headSignatureProblem(
  head: HeadCopy,
  jwks: JSONWebKeySet,
  unauthentic: readonly UnauthenticKey[] = [],
): Promise<string | null> {
  let payload: Record<string, unknown>;
  let header: { kid?: string; typ?: string };
  if (unauthentic.length > 0) {
    let kid: unknown;
    try {
      kid = decodeProtectedHeader(head.jws).kid;
    } catch {
      kid = undefined;
    }
    const planted = unauthentic.find((k) => k.kid === kid);
    if (planted) return notAuthenticDetail(planted);
  }
  try {
    const verified = await compactVerify(head.jws, createLocalJWKSet(jwks), {
      algorithms: [SIGNING_ALG],
    });
    payload = JSON.parse(new TextDecoder().decode(verified.payload));
    header = verified.protectedHeader;
  } catch (err) {
    return `its signature does not verify with the published keys (${(err as { code?: string }).code ?? 'invalid'})`;
  }
  if (header.typ !== TREE_HEAD_TYP) return `its JWS type is ${String(header.typ)}`;
  if (payload.size !== head.size || payload.root_hash !== head.root_hash) {
    return 'its signed size or root hash differs from the stored ones';
  }
  if (payload.kid !== header.kid || (head.kid !== undefined && payload.kid !== head.kid)) {
    return 'its signed key id differs from the signing key';
  }
  if (head.timestamp !== undefined && payload.timestamp !== head.timestamp) {
    return 'its signed timestamp differs from the stored one';
  }
  return null;
}

export type ExternalCheck = {
  prisma: PrismaClient;
  jwks: JSONWebKeySet;
  /** Stored keys that are not authentic (their heads are refused by name). */
  unauthentic: readonly UnauthenticKey[];
  /** The log's size and recomputed root at the end of the walk. */
  size: number;
  root: Uint8Array;
  /** Sizes whose stored head failed a check in the walk. */
  failedHeadSizes: ReadonlySet<number>;
  report: (f: IntegrityFinding) => void;
};

const BATCH = 500;

/**
 * Checks heads from outside the tables, `source` naming where each came
 * from. A head identical to the stored one at its size (verified in the
 * walk) needs nothing more; any other gets its signature checked and a
 * consistency proof from storage verified against its root and the
 * recomputed root: the log must extend every head it ever showed anyone.
 */
async function checkBatch(ctx: ExternalCheck, batch: { head: HeadCopy; source: string }[]) {
  const sizes = batch.map((b) => b.head.size).filter(Number.isSafeInteger);
  const stored = await ctx.prisma.$queryRawUnsafe<{ size: string; jws: string }[]>(
    `SELECT size::text AS size, jws FROM "TreeHead" WHERE size = ANY($1::bigint[])`,
    sizes,
  );
  const jwsAt = new Map(stored.map((s) => [Number(s.size), s.jws]));
  for (const { head, source } of batch) {
    const at = { leafIndex: null };
    if (jwsAt.get(head.size) === head.jws && !ctx.failedHeadSizes.has(head.size)) continue;
    const bad = await headSignatureProblem(head, ctx.jwks, ctx.unauthentic);
    if (bad) {
      ctx.report(
        finding(
          'tree_head_invalid',
          'tree_head',
          `${source}: the head of size ${head.size}: ${bad}`,
          at,
        ),
      );
      continue;
    }
    if (head.size === 0) continue;
    if (head.size > ctx.size) {
      ctx.report(
        finding(
          'inconsistent',
          'tree_head',
          `${source}: a signed head of size ${head.size} exists but the log has only ${ctx.size} leaves (leaves were removed)`,
          at,
        ),
      );
      continue;
    }
    const oldRoot = hashFromHex(head.root_hash);
    let ok = false;
    try {
      const proof = await consistencyProof(ctx.prisma, head.size, ctx.size);
      const path = proof.proof.map(hashFromHex);
      ok =
        oldRoot !== null &&
        path.every((p) => p !== null) &&
        verifyConsistency(head.size, ctx.size, path as Uint8Array[], oldRoot, ctx.root);
    } catch {
      ok = false;
    }
    if (!ok) {
      ctx.report(
        finding(
          'inconsistent',
          'tree_head',
          `${source}: the log of ${ctx.size} leaves is not an extension of the head of size ${head.size} (root ${head.root_hash})`,
          at,
        ),
      );
    }
  }
}

function parseLine(line: string): HeadCopy | null {
  try {
    const h = JSON.parse(line) as HeadCopy;
    if (!Number.isSafeInteger(h.size) || typeof h.root_hash !== 'string') return null;
    if (typeof h.jws !== 'string') return null;
    return h;
  } catch {
    return null;
  }
}

/** Every line of the local tree-head file (absent file: nothing to check). */
export async function checkHeadFile(ctx: ExternalCheck, file: string): Promise<number> {
  if (!existsSync(file)) return 0;
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  let batch: { head: HeadCopy; source: string }[] = [];
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    const head = parseLine(line);
    if (!head) {
      ctx.report(
        finding('tree_head_invalid', 'tree_head', `tree-head file line ${n} is not a tree head`),
      );
      continue;
    }
    batch.push({ head, source: `tree-head file line ${n}` });
    if (batch.length >= BATCH) {
      await checkBatch(ctx, batch);
      batch = [];
    }
  }
  if (batch.length > 0) await checkBatch(ctx, batch);
  return n;
}

/** Every head a witness acknowledged. */
export async function checkWitnessedHeads(ctx: ExternalCheck): Promise<number> {
  let after = { witnessId: '00000000-0000-0000-0000-000000000000', size: -1 };
  let n = 0;
  for (;;) {
    const rows = await ctx.prisma.$queryRawUnsafe<
      { witnessId: string; url: string; size: string; rootHash: string; jws: string }[]
    >(
      `SELECT h."witnessId"::text AS "witnessId", w.url, h.size::text AS size, h."rootHash", h.jws
       FROM "WitnessHead" h JOIN "Witness" w ON w.id = h."witnessId"
       WHERE h."acknowledgedAt" IS NOT NULL AND (h."witnessId", h.size) > ($1::uuid, $2::bigint)
       ORDER BY h."witnessId", h.size LIMIT ${BATCH}`,
      after.witnessId,
      after.size,
    );
    if (rows.length === 0) return n;
    n += rows.length;
    await checkBatch(
      ctx,
      rows.map((r) => ({
        head: { size: Number(r.size), root_hash: r.rootHash, jws: r.jws },
        source: `witness ${r.url}`,
      })),
    );
    const last = rows[rows.length - 1];
    after = { witnessId: last.witnessId, size: Number(last.size) };
    if (rows.length < BATCH) return n;
  }
}
