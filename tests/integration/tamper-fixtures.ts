import { rmSync } from 'node:fs';
import { CompactSign, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import type { JSONWebKeySet } from 'jose';
import { buildContext, canonicalJson, jcsSha256 } from '@checkpoint/agent-hooks';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { appendLeaves, EMPTY_FRONTIER, frontierRoot, toHex } from '@/lib/proof';
import { decideTicket } from '@/lib/server/approvals/decide';
import { ingestRecords } from '@/lib/server/records/ingest';
import { chainHashOf } from '@/lib/server/records/chain';
import { recordColumns } from '@/lib/server/records/validate-record';
import { publicJwks } from '@/lib/server/signing';
import { appendAll } from '@/lib/server/transparency/append';
import { recordLeafHash } from '@/lib/server/transparency/leaf-data';
import { recordById } from '@/lib/server/transparency/sources';
import { type TreeHead, TREE_HEAD_TYP, issueTreeHead } from '@/lib/server/transparency/tree-head';
import { approvalRequest, hostWithKey, post, userWith } from './approvals-fixtures';
import { testDb, truncateAll } from './helpers/db';
import { makeRecord } from './records-fixtures';

/**
 * The genuine data the tamper matrix (issue 13, "Tests that must exist")
 * starts from, written through the real paths: a ticket posted by the host,
 * decided by a reviewer (a decision leaf with a receipt), two sessions of ten
 * records ingested (the ticket's record linked to it), everything appended
 * to the log and a signed tree head issued. Then the tamperings, each done
 * the way a person with a database shell would: raw SQL, plus whatever a
 * careful attacker can recompute without a secret (SHA-256 chains, Merkle
 * nodes, a signature with a key of their own).
 */

export const SESSION_A = 'tamper-a';
export const SESSION_B = 'tamper-b';
export const SESSION_LENGTH = 10;
/** A's record at this sequence is a deny (reason set); the displayed-column tamperings target it. */
export const DENY_SEQ = 2;
/** A's record at this sequence was escalated and approved by the reviewer. */
export const TICKET_SEQ = 4;

export type RecordRef = { id: string; sessionId: string; sequence: number };

export type Genuine = {
  hostId: string;
  auditor: { id: string; roles: ('auditor' | 'admin' | 'reviewer')[] };
  ticketId: string;
  decisionId: string;
  /** `${sessionId}:${sequence}` → the genuine record. */
  records: Map<string, RecordRef>;
  treeHead: TreeHead;
  /** The JWKS as an auditor fetched it before any tampering. */
  jwks: JSONWebKeySet;
};

export function rec(g: Genuine, sessionId: string, sequence: number): RecordRef {
  const r = g.records.get(`${sessionId}:${sequence}`);
  if (!r) throw new Error(`no genuine record ${sessionId}:${sequence}`);
  return r;
}

function sessionRecords(sessionId: string): Record<string, unknown>[] {
  return Array.from({ length: SESSION_LENGTH }, (_, i) => {
    if (sessionId === SESSION_A && i === DENY_SEQ) {
      return makeRecord(sessionId, i, {
        verdict: { decision: 'deny', reason: 'amount_over_threshold' },
        decided_by: 0,
      });
    }
    if (sessionId === SESSION_A && i === TICKET_SEQ) {
      return makeRecord(sessionId, i, { decided_by: 0, resolved_by: 'approval' });
    }
    return makeRecord(sessionId, i);
  });
}

/**
 * Empties the database and the tree-head file (a fresh deployment) and
 * writes the genuine data.
 */
export async function seedGenuine(treeHeadFile: string): Promise<Genuine> {
  await truncateAll();
  rmSync(treeHeadFile, { force: true });
  const prisma = await testDb();
  const host = await hostWithKey('tamper-host');
  const reviewer = await userWith('rita-tamper@example.com', ['reviewer']);
  const auditor = await prisma.user.create({
    data: { email: 'aud-tamper@example.com', roles: ['auditor'] },
    select: { id: true, roles: true },
  });
  const context = buildContext(
    'pre_tool_call',
    {
      spec: 'agent-hooks/0.1',
      timestamp: '2026-12-02T10:00:00.000Z',
      sequence: TICKET_SEQ,
      agent: { id: 'billing-bot', framework: 'demo' },
      session: { id: SESSION_A },
    },
    { tool_call: { id: 'call-t', name: 'wire_transfer', args: { to: 'ACME', amount: 25000 } } },
  );
  const posted = await post(host.key, approvalRequest(context));
  if (posted.status !== 201) throw new Error(`ticket not created: ${JSON.stringify(posted.body)}`);
  const ticketId = posted.body.id as string;
  await decideTicket({
    ticketId,
    actor: { kind: 'human', userId: reviewer.id, auth: 'password' },
    outcome: 'approve',
    contextIdentity: jcsSha256.compute(context),
  });
  await ingestRecords(host.id, sessionRecords(SESSION_A));
  await ingestRecords(host.id, sessionRecords(SESSION_B));
  await appendAll(prisma);
  const treeHead = await issueTreeHead(prisma);
  if (!treeHead) throw new Error('no tree head issued');
  const rows = await prisma.interceptionRecord.findMany({
    select: { id: true, sessionId: true, sequence: true },
  });
  const decision = await prisma.decision.findUniqueOrThrow({
    where: { ticketId },
    select: { id: true },
  });
  return {
    hostId: host.id,
    auditor: auditor as Genuine['auditor'],
    ticketId,
    decisionId: decision.id,
    records: new Map(
      rows.map((r) => [
        `${r.sessionId}:${r.sequence}`,
        { id: r.id.toString(), sessionId: r.sessionId, sequence: r.sequence },
      ]),
    ),
    treeHead,
    jwks: await publicJwks(),
  };
}

/** What the worker does after any tampering: append whatever is pending, sign the new size. */
export async function runWorkerOnce(prisma: PrismaClient): Promise<void> {
  await appendAll(prisma);
  await issueTreeHead(prisma);
}

// ---------------------------------------------------------------------------
// Tamper operations: raw SQL and public algorithms only.

export async function rowOf(prisma: PrismaClient, id: string) {
  return prisma.interceptionRecord.findUnique({ where: { id: BigInt(id) } });
}

/** The record's leaf index (its LogLeaf row), null when it has none. */
export async function leafIndexOf(prisma: PrismaClient, id: string): Promise<number | null> {
  const leaf = await prisma.logLeaf.findUnique({
    where: { kind_refId: { kind: 'record', refId: id } },
  });
  return leaf ? Number(leaf.index) : null;
}

/** Records with no leaf. */
export async function unloggedRecordCount(prisma: PrismaClient): Promise<number> {
  const [{ n }] = await prisma.$queryRawUnsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM "InterceptionRecord" r
     WHERE NOT EXISTS (SELECT 1 FROM "LogLeaf" l WHERE l.kind = 'record' AND l."refId" = r.id::text)`,
  );
  return n;
}

/** Whether the log still holds a leaf naming the record (it does after a DELETE). */
export async function leafNames(prisma: PrismaClient, id: string): Promise<boolean> {
  return (await prisma.logLeaf.count({ where: { kind: 'record', refId: id } })) === 1;
}

/** A displayed column only: the deny shows as an allow without a reason. */
export async function updateDisplayedColumns(prisma: PrismaClient, id: string): Promise<void> {
  await prisma.$executeRawUnsafe(
    `UPDATE "InterceptionRecord" SET decision = 'allow', reason = NULL WHERE id = $1::bigint`,
    id,
  );
}

/** The stored JSON only: its verdict becomes an allow, the columns still say deny. */
export async function updateRecordJson(prisma: PrismaClient, id: string): Promise<void> {
  await prisma.$executeRawUnsafe(
    `UPDATE "InterceptionRecord" SET record = jsonb_set(record, '{verdict}', '{"decision":"allow"}')
     WHERE id = $1::bigint`,
    id,
  );
}

export async function deleteRecord(prisma: PrismaClient, id: string): Promise<void> {
  await prisma.$executeRawUnsafe(`DELETE FROM "InterceptionRecord" WHERE id = $1::bigint`, id);
}

/**
 * Deletes a session's records from `from` on. With `moveHead` the session's
 * chain head is set back to the last remaining record, as if the session had
 * ended there.
 */
export async function deleteTail(
  prisma: PrismaClient,
  g: Genuine,
  sessionId: string,
  from: number,
  opts: { moveHead?: boolean } = {},
): Promise<void> {
  await prisma.$executeRawUnsafe(
    `DELETE FROM "InterceptionRecord" WHERE "hostId" = $1::uuid AND "sessionId" = $2 AND sequence >= $3`,
    g.hostId,
    sessionId,
    from,
  );
  if (!opts.moveHead) return;
  await prisma.$executeRawUnsafe(
    `UPDATE "SessionChain" c SET "headHash" = r."chainHash", "lastSequence" = r.sequence,
       "recordCount" = (SELECT count(*) FROM "InterceptionRecord" x
                        WHERE x."hostId" = c."hostId" AND x."sessionId" = c."sessionId")
     FROM (SELECT "chainHash", sequence FROM "InterceptionRecord"
           WHERE "hostId" = $1::uuid AND "sessionId" = $2 ORDER BY id DESC LIMIT 1) r
     WHERE c."hostId" = $1::uuid AND c."sessionId" = $2`,
    g.hostId,
    sessionId,
  );
}

/** Adds `by` to every sequence of a session, in the columns, the JSON and the chain head. */
export async function renumberSession(
  prisma: PrismaClient,
  g: Genuine,
  sessionId: string,
  by: number,
): Promise<void> {
  await prisma.$executeRawUnsafe(
    `UPDATE "InterceptionRecord" SET sequence = sequence + $3,
       record = jsonb_set(record, '{sequence}', to_jsonb(sequence + $3))
     WHERE "hostId" = $1::uuid AND "sessionId" = $2`,
    g.hostId,
    sessionId,
    by,
  );
  await prisma.$executeRawUnsafe(
    `UPDATE "SessionChain" SET "lastSequence" = "lastSequence" + $3
     WHERE "hostId" = $1::uuid AND "sessionId" = $2`,
    g.hostId,
    sessionId,
    by,
  );
}

/** Swaps two records' sequences, column and JSON. */
export async function swapSequences(prisma: PrismaClient, a: RecordRef, b: RecordRef) {
  const move = (id: string, to: number) =>
    prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" SET sequence = $2,
         record = jsonb_set(record, '{sequence}', to_jsonb($2::int)) WHERE id = $1::bigint`,
      id,
      to,
    );
  // Through a free sequence: the (host, session, sequence) key is checked row by row.
  await move(a.id, 1_000_000);
  await move(b.id, a.sequence);
  await move(a.id, b.sequence);
}

type Row = { id: string; record: unknown; chainHash: string; prevHash: string | null };

async function sessionRows(prisma: PrismaClient, g: Genuine, sessionId: string): Promise<Row[]> {
  return prisma.$queryRawUnsafe<Row[]>(
    // Chain order is stored (id) order; ordered by the bigint, not its text.
    `SELECT r.id::text AS id, r.record, r."chainHash", r."prevHash" FROM "InterceptionRecord" r
     WHERE r."hostId" = $1::uuid AND r."sessionId" = $2 ORDER BY r.id`,
    g.hostId,
    sessionId,
  );
}

/**
 * Rewrites the deny at A:DENY_SEQ into an allow (JSON and the columns copied
 * from it, as a careful attacker would), then recomputes that link and every
 * later one with the chain's public function, and the session's head.
 * Returns the ids whose stored row changed.
 */
export async function rewriteAndRechain(prisma: PrismaClient, g: Genuine): Promise<string[]> {
  const target = rec(g, SESSION_A, DENY_SEQ).id;
  await prisma.$executeRawUnsafe(
    `UPDATE "InterceptionRecord" SET record = jsonb_set(record - 'decided_by', '{verdict}', '{"decision":"allow"}'),
       decision = 'allow', reason = NULL, "decidedBy" = NULL WHERE id = $1::bigint`,
    target,
  );
  const rows = await sessionRows(prisma, g, SESSION_A);
  const changed: string[] = [];
  let prev: string | null = null;
  let started = false;
  for (const row of rows) {
    started ||= row.id === target;
    if (started) {
      const canonical = canonicalJson(row.record);
      const chainHash = chainHashOf(prev, canonical);
      await prisma.$executeRawUnsafe(
        `UPDATE "InterceptionRecord" SET "chainHash" = $2, "prevHash" = $3,
           "contentHash" = encode(sha256(convert_to($4, 'UTF8')), 'hex') WHERE id = $1::bigint`,
        row.id,
        chainHash,
        prev,
        canonical,
      );
      changed.push(row.id);
      prev = chainHash;
    } else {
      prev = row.chainHash;
    }
  }
  await prisma.$executeRawUnsafe(
    `UPDATE "SessionChain" SET "headHash" = $3 WHERE "hostId" = $1::uuid AND "sessionId" = $2`,
    g.hostId,
    SESSION_A,
    prev,
  );
  return changed;
}

/**
 * A record no ingest ever stored, made to look like one: the next free
 * sequence of session A, its columns derived from its JSON exactly as
 * ingest derives them, its link computed with the chain's function.
 * `after: 'middle'` links it after A's record at sequence TICKET_SEQ (a
 * branch off the middle of the chain; the head is left alone); `after:
 * 'tail'` links it after the last record and moves the session's head on,
 * which is all a row written by ingest has. Returns its id.
 */
export async function insertForgedRecord(
  prisma: PrismaClient,
  g: Genuine,
  after: 'middle' | 'tail',
): Promise<string> {
  const rows = await sessionRows(prisma, g, SESSION_A);
  const prev =
    after === 'tail'
      ? (rows.at(-1)?.chainHash ?? null)
      : (rows.find((r) => r.id === rec(g, SESSION_A, TICKET_SEQ).id)?.chainHash ?? null);
  const record = makeRecord(SESSION_A, SESSION_LENGTH, {
    interception_point: 'pre_tool_call',
    verdict: { decision: 'allow' },
  });
  const canonical = canonicalJson(record);
  const c = recordColumns(record as never);
  const inserted = await prisma.$queryRawUnsafe<{ id: string }[]>(
    `INSERT INTO "InterceptionRecord" ("hostId", "sessionId", sequence, "interceptionPoint", mode,
       decision, reason, "resolvedBy", "foldTruncated", "decidedBy", "hostError", "identityProvider",
       "inputIdentity", "enforcedIdentity", timestamp, record, "chainHash", "prevHash", "contentHash")
     VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::timestamp(3),
       $16::jsonb, $17, $18, encode(sha256(convert_to($19, 'UTF8')), 'hex'))
     RETURNING id::text AS id`,
    g.hostId,
    SESSION_A,
    SESSION_LENGTH,
    c.interceptionPoint,
    c.mode,
    c.decision,
    c.reason,
    c.resolvedBy,
    c.foldTruncated,
    c.decidedBy,
    c.hostError,
    c.identityProvider,
    c.inputIdentity,
    c.enforcedIdentity,
    c.timestamp?.toISOString() ?? null,
    canonical,
    chainHashOf(prev, canonical),
    prev,
    canonical,
  );
  if (after === 'tail') {
    await prisma.$executeRawUnsafe(
      `UPDATE "SessionChain" SET "headHash" = $3, "lastSequence" = $4, "recordCount" = "recordCount" + 1
       WHERE "hostId" = $1::uuid AND "sessionId" = $2`,
      g.hostId,
      SESSION_A,
      chainHashOf(prev, canonical),
      SESSION_LENGTH,
    );
  }
  return inserted[0].id;
}

/**
 * Rebuilds every Merkle node from the leaves, the leaves of `changed`
 * records recomputed from their (altered) rows, and replaces the latest tree
 * head with one over that root, signed by a key of the attacker's own:
 * `kid: 'same'` keeps the genuine head's kid, `'new'` names the new key's
 * thumbprint, `'planted'` also writes the new public key into SigningKey as
 * a retired key, so the deployment's own JWKS publishes it.
 */
export async function forgeTreeHead(
  prisma: PrismaClient,
  changed: string[],
  kid: 'same' | 'new' | 'planted',
): Promise<{ size: number; kid: string }> {
  const nodes = await prisma.$queryRawUnsafe<{ index: string; hash: Uint8Array }[]>(
    `SELECT n."index"::text AS "index", n.hash FROM "LogNode" n WHERE n.level = 0 ORDER BY n."index"`,
  );
  const leaves: Uint8Array[] = nodes.map((n) => new Uint8Array(n.hash));
  if (nodes.some((n, i) => Number(n.index) !== i)) throw new Error('the log has a hole');
  for (const id of changed) {
    const row = await recordById(prisma, id);
    if (!row?.logIndex) throw new Error(`record ${id} is not logged`);
    leaves[Number(row.logIndex)] = recordLeafHash(row);
  }
  const { created, frontier } = appendLeaves(EMPTY_FRONTIER, leaves);
  await prisma.$executeRawUnsafe(`DELETE FROM "LogNode"`);
  await prisma.$executeRawUnsafe(
    `INSERT INTO "LogNode" ("level", "index", "hash")
     SELECT l, i, decode(h, 'hex') FROM unnest($1::int[], $2::bigint[], $3::text[]) AS u(l, i, h)`,
    created.map((s) => s.level),
    created.map((s) => s.index),
    created.map((s) => toHex(s.hash)),
  );
  const rootHash = toHex(frontierRoot(frontier));
  const head = await prisma.$queryRawUnsafe<{ size: string; kid: string }[]>(
    `SELECT size::text AS size, kid FROM "TreeHead" ORDER BY size DESC LIMIT 1`,
  );
  const size = Number(head[0].size);
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const publicJwk = await exportJWK(publicKey);
  const forgedKid = kid === 'same' ? head[0].kid : await calculateJwkThumbprint(publicJwk);
  if (kid === 'planted') {
    await prisma.$executeRawUnsafe(
      `INSERT INTO "SigningKey" (kid, alg, "publicJwk", "privateKey", "createdBy", "retiredAt")
       VALUES ($1, 'EdDSA', $2::jsonb, 'not-a-key', 'system', now())`,
      forgedKid,
      JSON.stringify({ kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x }),
    );
  }
  const timestamp = Date.now();
  const payload = { size, root_hash: rootHash, timestamp, kid: forgedKid };
  const jws = await new CompactSign(new TextEncoder().encode(canonicalJson(payload)))
    .setProtectedHeader({ alg: 'EdDSA', kid: forgedKid, typ: TREE_HEAD_TYP })
    .sign(privateKey);
  await prisma.$executeRawUnsafe(
    `UPDATE "TreeHead" SET "rootHash" = $2, timestamp = $3::timestamp(3), kid = $4, jws = $5
     WHERE size = $1::bigint`,
    size,
    rootHash,
    new Date(timestamp).toISOString(),
    forgedKid,
    jws,
  );
  return { size, kid: forgedKid };
}
