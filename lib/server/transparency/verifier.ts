import 'server-only';
import type { JSONWebKeySet } from 'jose';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { appendLeaves, EMPTY_FRONTIER, type Frontier, frontierRoot, toHex } from '@/lib/proof';
import { config } from '@/lib/server/config';
import { type UnauthenticKey, unauthenticSigningKeys } from '@/lib/server/signing/authentic';
import { publicJwksOf } from '@/lib/server/signing/publish';
import { finding, type IntegrityFinding, isFailure } from '@/lib/verify/findings';
import { checkSessionHeads, checkUnlogged } from './verify-rows';
import { checkHeadFile, checkWitnessedHeads, headSignatureProblem } from './verify-heads';
import { checkLeafChunk } from './verify-leaves';
import { treeHeadFilePath } from './publish-head';
import { logSize } from './store';

/**
 * The background verifier (issue 13 item 4): walks the whole log in leaf
 * order, in chunks of one query each, so memory stays bounded whatever the
 * log's size (the frontier is O(log n), findings are capped). For every
 * leaf it rebuilds the leaf from its row and compares it with the stored
 * leaf hash, and the row's copied columns with its JSON (check-leaf.ts);
 * it recomputes the root incrementally and compares it with every signed
 * tree head at that head's size (each head's JWS verified against the
 * published keys, retired ones included); then it checks every session's
 * chain head against its records, rows never logged (or refused by the
 * appender), and the log's consistency with every head kept outside its
 * tables: the local tree-head file and what each witness acknowledged.
 * Every finding names the record (id, host, session, sequence, leaf).
 */

export type LogVerification = {
  ok: boolean;
  size: number;
  checkedLeaves: number;
  findings: IntegrityFinding[];
  firstFailure: IntegrityFinding | null;
  startedAt: string;
  finishedAt: string;
  /** Every finding, also those past `maxFindings`. */
  totalFindings: number;
  /** Findings that are failures (`isFailure`), also those past `maxFindings`. */
  failureCount: number;
};

export type VerifyLogOptions = {
  /** Findings kept in the answer (the rest are counted). */
  maxFindings?: number;
  /** Leaves per query. */
  chunk?: number;
  /** A row not logged after this long was not stored through ingest. */
  notLoggedGraceMs?: number;
  /** The local tree-head file; default TREE_HEAD_FILE or `<DATA_DIR>/tree-heads.jsonl`. */
  treeHeadFile?: string;
};

const DEFAULT_MAX_FINDINGS = 200;
const DEFAULT_CHUNK = 2_000;

/** Several append intervals, and at least a minute. */
export function defaultNotLoggedGraceMs(): number {
  return Math.max(60_000, 10 * config().LOG_APPEND_INTERVAL_MS);
}

class Findings {
  readonly kept: IntegrityFinding[] = [];
  total = 0;
  failures = 0;
  first: IntegrityFinding | null = null;
  constructor(private readonly max: number) {}
  report = (f: IntegrityFinding): void => {
    this.total++;
    if (isFailure(f)) {
      this.failures++;
      this.first ??= f;
    }
    if (this.kept.length < this.max) this.kept.push(f);
  };
}

type Head = { size: number; rootHash: string; timestamp: number; kid: string; jws: string };

async function headsBetween(prisma: PrismaClient, after: number, upTo: number): Promise<Head[]> {
  const rows = await prisma.$queryRawUnsafe<
    { size: string; rootHash: string; timestamp: string; kid: string; jws: string }[]
  >(
    `SELECT size::text AS size, "rootHash", (extract(epoch FROM timestamp) * 1000)::bigint::text AS timestamp,
       kid, jws FROM "TreeHead" WHERE size > $1::bigint AND size <= $2::bigint ORDER BY size LIMIT 1000`,
    after,
    upTo,
  );
  return rows.map((r) => ({ ...r, size: Number(r.size), timestamp: Number(r.timestamp) }));
}

/** The walk: leaves, the recomputed root, and every stored head at its size. */
async function walk(
  prisma: PrismaClient,
  size: number,
  chunk: number,
  jwks: JSONWebKeySet,
  unauthentic: readonly UnauthenticKey[],
  found: Findings,
  failedHeadSizes: Set<number>,
): Promise<{ root: Uint8Array | null; checked: number }> {
  let frontier: Frontier = EMPTY_FRONTIER;
  let rootKnown = true;
  let heads: Head[] = [];
  let headsAfter = 0;
  let headsDone = false;
  const checkHead = async (head: Head, root: Uint8Array | null) => {
    const bad = await headSignatureProblem(
      {
        size: head.size,
        root_hash: head.rootHash,
        timestamp: head.timestamp,
        kid: head.kid,
        jws: head.jws,
      },
      jwks,
      unauthentic,
    );
    if (bad) {
      failedHeadSizes.add(head.size);
      found.report(
        finding('tree_head_invalid', 'tree_head', `the tree head of size ${head.size}: ${bad}`),
      );
    } else if (root && toHex(root) !== head.rootHash) {
      failedHeadSizes.add(head.size);
      found.report(
        finding(
          'inconsistent',
          'tree_head',
          `the tree head of size ${head.size} signs root ${head.rootHash}, but the stored leaves give ${toHex(root)}`,
        ),
      );
    }
  };
  let checked = 0;
  for (let from = 0; from < size; from += chunk) {
    const to = Math.min(size, from + chunk);
    const { hashes, findings } = await checkLeafChunk(prisma, from, to);
    for (const f of findings) found.report(f);
    checked += hashes.length;
    let at = from;
    while (at < to) {
      if (heads.length === 0 && !headsDone) {
        heads = await headsBetween(prisma, headsAfter, size);
        if (heads.length > 0) headsAfter = heads[heads.length - 1].size;
        else headsDone = true;
      }
      const next = heads[0];
      const stop = next && next.size <= to ? next.size : to;
      const segment = hashes.slice(at - from, stop - from);
      if (rootKnown && segment.every((h) => h !== null)) {
        frontier = appendLeaves(frontier, segment as Uint8Array[]).frontier;
      } else {
        rootKnown = false;
      }
      at = stop;
      if (next && next.size === stop) {
        heads.shift();
        await checkHead(next, rootKnown ? frontierRoot(frontier) : null);
      }
    }
  }
  // Heads of size 0 are not reached by the loop.
  return { root: rootKnown ? frontierRoot(frontier) : null, checked };
}

export async function verifyLog(
  prisma: PrismaClient,
  opts: VerifyLogOptions = {},
): Promise<LogVerification> {
  const startedAt = new Date().toISOString();
  const found = new Findings(opts.maxFindings ?? DEFAULT_MAX_FINDINGS);
  const size = await logSize(prisma);
  const jwks = await publicJwksOf(prisma);
  // A key planted in SigningKey is neither published nor trusted; it is a finding of its own too.
  const unauthentic = await unauthenticSigningKeys(prisma);
  for (const k of unauthentic) {
    found.report(
      finding(
        'forged',
        'tree_head',
        `signing key ${k.kid} is stored in SigningKey but is not authentic (${k.reason}): it is not published, and tree heads and receipts signed by it are refused`,
      ),
    );
  }
  const failedHeadSizes = new Set<number>();
  const { root, checked } = await walk(
    prisma,
    size,
    opts.chunk ?? DEFAULT_CHUNK,
    jwks,
    unauthentic,
    found,
    failedHeadSizes,
  );
  if (root === null) {
    found.report(
      finding(
        'missing',
        'tree_head',
        `leaves are missing from the log's storage: its root cannot be recomputed`,
      ),
    );
  }
  // A head larger than the log: leaves were removed after it was signed.
  const bigger = await prisma.$queryRawUnsafe<{ size: string }[]>(
    `SELECT size::text AS size FROM "TreeHead" WHERE size > (SELECT COALESCE(max("index"), -1) + 1 FROM "LogLeaf")
     ORDER BY size LIMIT 1`,
  );
  if (bigger[0]) {
    found.report(
      finding(
        'inconsistent',
        'tree_head',
        `a tree head of size ${bigger[0].size} is stored but the log has only ${await logSize(prisma)} leaves`,
      ),
    );
  }
  await checkSessionHeads(prisma, found.report);
  await checkUnlogged(prisma, opts.notLoggedGraceMs ?? defaultNotLoggedGraceMs(), found.report);
  if (root !== null) {
    const ctx = { prisma, jwks, unauthentic, size, root, failedHeadSizes, report: found.report };
    await checkHeadFile(ctx, opts.treeHeadFile ?? treeHeadFilePath());
    await checkWitnessedHeads(ctx);
  }
  return {
    ok: found.first === null,
    size,
    checkedLeaves: checked,
    findings: found.kept,
    firstFailure: found.first,
    startedAt,
    finishedAt: new Date().toISOString(),
    totalFindings: found.total,
    failureCount: found.failures,
  };
}
