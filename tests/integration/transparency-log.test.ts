import { createHash, generateKeyPairSync } from 'node:crypto';
import { CompactSign, exportJWK, importJWK } from 'jose';
import { NextRequest } from 'next/server';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { canonicalJson } from '@checkpoint/agent-hooks';
import { hashFromHex, leafHash, nodeHash, verifyConsistency, verifyInclusion } from '@/lib/proof';
import { receiptForTicket } from '@/lib/server/receipts';
import { ingestRecords } from '@/lib/server/records/ingest';
import { forgetActiveSigningKey, publicJwks, verifyJws } from '@/lib/server/signing';
import { appendAll, appendPending } from '@/lib/server/transparency/append';
import { checkLeaf } from '@/lib/server/transparency/check-leaf';
import { startTransparencyLoop } from '@/lib/server/transparency/runtime';
import { TREE_HEAD_TYP, issueTreeHead } from '@/lib/server/transparency/tree-head';
import { GET as getConsistencyRoute } from '@/app/api/v1/log/proof/consistency/route';
import { GET as getInclusionRoute } from '@/app/api/v1/log/proof/inclusion/route';
import { GET as getTreeHeadRoute } from '@/app/api/v1/log/tree-head/route';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { makeRecord, noParams, seedHost } from './records-fixtures';

// No browser session in these tests: the routes are reached with host API keys.
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** RFC 9162 MTH written out recursively here, independent of lib/proof's storage model. */
function mth(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return new Uint8Array(createHash('sha256').digest());
  if (leaves.length === 1) return leaves[0];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

let host: { id: string; key: string };
let other: { id: string; key: string };

beforeEach(async () => {
  await truncateAll();
  // The signing keys went with the tables: sign with the next one generated.
  forgetActiveSigningKey();
  host = await seedHost('log');
  other = await seedHost('other');
});
afterAll(closeTestDb);

async function seedDecision(hostId: string, n: number): Promise<string> {
  const prisma = await testDb();
  const ticket = await prisma.approvalTicket.create({
    data: {
      hostId,
      interceptionPoint: 'pre_tool_call',
      verdict: { decision: 'deny', reason: 'needs_approval' },
      context: {},
      sessionId: 's',
      sequence: n,
      agentId: 'a',
      expiresAt: new Date(Date.now() + 60_000),
      status: 'approved',
    },
  });
  const decision = await prisma.decision.create({
    data: {
      ticketId: ticket.id,
      outcome: 'approve',
      verdict: { decision: 'allow' },
      decidedByKind: 'human',
      contextIdentity: `jcs-sha256:${n}`,
    },
  });
  // A real receipt over the row: the appender refuses a decision whose receipt does not verify.
  await receiptForTicket(ticket.id, { prisma });
  return decision.id;
}

function get(path: string, key: string | null): NextRequest {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  return new NextRequest(`http://localhost${path}`, { headers });
}

async function json(res: Response) {
  return { status: res.status, body: await res.json() };
}

/** Every leaf's data rebuilt from the rows here, in log order, following the documented format. */
async function leavesFromScratch(): Promise<Uint8Array[]> {
  const prisma = await testDb();
  const leaves = await prisma.logLeaf.findMany({ orderBy: { index: 'asc' } });
  const out: Uint8Array[] = [];
  for (const l of leaves) {
    let data: Record<string, unknown>;
    if (l.kind === 'record') {
      const r = await prisma.interceptionRecord.findUniqueOrThrow({
        where: { id: BigInt(l.refId) },
      });
      data = {
        kind: 'record',
        host_id: r.hostId,
        session_id: r.sessionId,
        sequence: r.sequence,
        record: r.record,
        chain_hash: r.chainHash,
        prev_hash: r.prevHash,
        received_at: r.receivedAt.toISOString(),
        agent_id: r.agentId,
        ticket_id: r.ticketId,
      };
    } else {
      const d = await prisma.decision.findUniqueOrThrow({
        where: { id: l.refId },
        include: { ticket: { select: { hostId: true } } },
      });
      data = {
        kind: 'decision',
        ticket_id: d.ticketId,
        host_id: d.ticket.hostId,
        outcome: d.outcome,
        context_identity: d.contextIdentity,
        decided_by_kind: d.decidedByKind,
        user_id: d.userId,
        note: d.note,
        decided_at: d.createdAt.toISOString(),
        verdict: d.verdict,
        receipt_sha256: createHash('sha256')
          .update(d.receipt ?? '')
          .digest('hex'),
      };
    }
    out.push(leafHash(new TextEncoder().encode(canonicalJson(data))));
  }
  return out;
}

describe('transparency log', () => {
  it('appends records and decisions with consecutive indexes, even with two appenders racing', async () => {
    await ingestRecords(
      host.id,
      Array.from({ length: 40 }, (_, i) => makeRecord('race', i)),
    );
    await seedDecision(host.id, 1);
    await seedDecision(other.id, 2);
    await ingestRecords(
      other.id,
      Array.from({ length: 23 }, (_, i) => makeRecord('other', i)),
    );
    const prisma = await testDb();
    // Small batches so the racers interleave many transactions.
    const racers = await Promise.all([
      appendAll(prisma, { batch: 7 }),
      appendAll(prisma, { batch: 5 }),
    ]);
    expect(racers[0].appended + racers[1].appended).toBe(65);
    const leaves = await prisma.logLeaf.findMany({ orderBy: { index: 'asc' } });
    expect(leaves.map((l) => Number(l.index))).toEqual(Array.from({ length: 65 }, (_, i) => i));
    expect(new Set(leaves.map((l) => `${l.kind}:${l.refId}`)).size).toBe(65);
    expect(await prisma.decision.count({ where: { logIndex: null } })).toBe(0);
    // Every record has exactly one leaf (its LogLeaf row); every decision's logIndex names the leaf that names it.
    const records = await prisma.interceptionRecord.findMany({ select: { id: true } });
    const recordLeaves = leaves.filter((l) => l.kind === 'record').map((l) => l.refId);
    expect(recordLeaves.sort()).toEqual(records.map((r) => String(r.id)).sort());
    const decisions = await prisma.decision.findMany({ select: { id: true, logIndex: true } });
    for (const d of decisions) {
      expect(leaves[Number(d.logIndex)]).toMatchObject({ kind: 'decision', refId: d.id });
    }
    expect(await appendPending(prisma)).toEqual({ appended: 0, size: 65, refused: 0, more: false });
  });

  it('finds a record whose transaction commits after the appender logged higher ids', async () => {
    const prisma = await testDb();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted: (id: string) => void = () => {};
    const lateId = new Promise<string>((resolve) => {
      inserted = resolve;
    });
    // A transaction that draws its record id first and commits last (a row
    // without an ingest seal, so the appender refuses it: refused is handled,
    // skipped would be a hole nobody sees until a verifier runs).
    const late = prisma.$transaction(
      async (tx) => {
        const [row] = await tx.$queryRawUnsafe<{ id: string }[]>(
          `INSERT INTO "InterceptionRecord" ("hostId", "sessionId", sequence, "interceptionPoint", mode,
             decision, record, "chainHash", "contentHash")
           VALUES ($1::uuid, 'late', 0, 'pre_tool_call', 'enforce', 'allow', '{}'::jsonb, 'x', 'y')
           RETURNING id::text AS id`,
          host.id,
        );
        inserted(row.id);
        await gate;
      },
      { timeout: 30_000 },
    );
    const id = await lateId;
    await ingestRecords(
      host.id,
      [0, 1, 2].map((i) => makeRecord('early', i)),
    );
    for (let pass = 0; pass < 3; pass++) await appendAll(prisma);
    expect(await prisma.logLeaf.count({ where: { kind: 'record' } })).toBe(3);
    const open = await prisma.logRecordCursor.findUniqueOrThrow({ where: { id: 1 } });
    expect(open.lowId < BigInt(id)).toBe(true);
    release();
    await late;
    expect(await appendAll(prisma)).toMatchObject({ appended: 0, refused: 1 });
    expect(await prisma.logRefusal.findMany({ select: { kind: true, refId: true } })).toEqual([
      { kind: 'record', refId: id },
    ]);
    // Nothing in flight any more: the cursor passes every record.
    await appendAll(prisma);
    await appendAll(prisma);
    const settled = await prisma.logRecordCursor.findUniqueOrThrow({ where: { id: 1 } });
    expect(settled.lowId).toBe(4n);
  });

  it('stores the root the leaf data gives from scratch, and signs it as a tree head', async () => {
    await ingestRecords(
      host.id,
      Array.from({ length: 13 }, (_, i) => makeRecord('root', i)),
    );
    await seedDecision(host.id, 3);
    const prisma = await testDb();
    await appendAll(prisma, { batch: 4 });
    const head = await issueTreeHead(prisma);
    expect(head?.size).toBe(14);
    expect(head?.root_hash).toBe(hex(mth(await leavesFromScratch())));
    const { payload, header } = await verifyJws(head!.jws, await publicJwks());
    expect(header).toMatchObject({ alg: 'EdDSA', typ: TREE_HEAD_TYP, kid: head!.kid });
    expect(payload).toEqual({
      size: 14,
      root_hash: head!.root_hash,
      timestamp: head!.timestamp,
      kid: head!.kid,
    });
    // Same size: the stored head, not a second one.
    expect((await issueTreeHead(prisma))?.jws).toBe(head!.jws);
  });

  it('serves inclusion proofs that verify against the signed tree head', async () => {
    await ingestRecords(
      host.id,
      Array.from({ length: 11 }, (_, i) => makeRecord('inc', i)),
    );
    const decisionId = await seedDecision(host.id, 4);
    const prisma = await testDb();
    await appendAll(prisma);
    const records = await prisma.interceptionRecord.findMany({ orderBy: { id: 'asc' } });
    for (const q of [
      `record=${records[0].id}`,
      `record=${records[7].id}`,
      `decision=${decisionId}`,
    ]) {
      const { status, body } = await json(
        await getInclusionRoute(get(`/api/v1/log/proof/inclusion?${q}`, host.key), noParams),
      );
      expect(status).toBe(200);
      const { payload } = await verifyJws(body.tree_head.jws, await publicJwks());
      const signed = payload as { size: number; root_hash: string };
      expect(body.size).toBe(signed.size);
      const ok = verifyInclusion(
        hashFromHex(body.leaf_hash)!,
        body.index,
        signed.size,
        body.proof.map((h: string) => hashFromHex(h)!),
        hashFromHex(signed.root_hash)!,
      );
      expect(ok).toBe(true);
    }
    // The leaf hash is the row's leaf data, not just whatever the log stored.
    expect(await checkLeaf(prisma, String(records[7].id))).toMatchObject({
      status: 'ok',
      index: 7,
    });
    // Another host's record is not found; no key is unauthenticated.
    const foreign = await getInclusionRoute(
      get(`/api/v1/log/proof/inclusion?record=${records[0].id}`, other.key),
      noParams,
    );
    expect((await json(foreign)).body.error.code).toBe('not_found');
    const anonymous = await getInclusionRoute(
      get(`/api/v1/log/proof/inclusion?index=0`, null),
      noParams,
    );
    expect(anonymous.status).toBe(401);
  });

  it('serves consistency proofs between two tree heads that verify', async () => {
    const prisma = await testDb();
    await ingestRecords(
      host.id,
      [0, 1, 2, 3, 4].map((i) => makeRecord('cons', i)),
    );
    await appendAll(prisma);
    const old = await issueTreeHead(prisma);
    await ingestRecords(
      host.id,
      [5, 6, 7, 8, 9, 10, 11].map((i) => makeRecord('cons', i)),
    );
    await appendAll(prisma);
    const now = await issueTreeHead(prisma);
    expect([old?.size, now?.size]).toEqual([5, 12]);
    const res = await json(
      await getConsistencyRoute(
        get('/api/v1/log/proof/consistency?from=5&to=12', host.key),
        noParams,
      ),
    );
    expect(res.status).toBe(200);
    const proof = res.body.proof.map((h: string) => hashFromHex(h)!);
    const args = [hashFromHex(old!.root_hash)!, hashFromHex(now!.root_hash)!] as const;
    expect(verifyConsistency(5, 12, proof, ...args)).toBe(true);
    // The same proof does not bind a different old root.
    expect(verifyConsistency(5, 12, proof, args[1], args[1])).toBe(false);
    const bad = await getConsistencyRoute(
      get('/api/v1/log/proof/consistency?from=5&to=13', host.key),
      noParams,
    );
    expect((await json(bad)).body.error.code).toBe('request_invalid');
    const heads = await json(
      await getTreeHeadRoute(get('/api/v1/log/tree-head?size=5', host.key), noParams),
    );
    expect(heads.body.jws).toBe(old!.jws);
  });

  it('a tree head forged with another key does not verify', async () => {
    const prisma = await testDb();
    await ingestRecords(
      host.id,
      [0, 1, 2].map((i) => makeRecord('forge', i)),
    );
    await appendAll(prisma);
    const head = (await issueTreeHead(prisma))!;
    const { privateKey } = generateKeyPairSync('ed25519');
    const forger = await importJWK(await exportJWK(privateKey), 'EdDSA');
    // Self-consistent and naming the real kid, but signed by a key the JWKS does not hold.
    const forged = await new CompactSign(
      new TextEncoder().encode(
        canonicalJson({ ...head, jws: undefined, root_hash: '00'.repeat(32) }),
      ),
    )
      .setProtectedHeader({ alg: 'EdDSA', kid: head.kid, typ: TREE_HEAD_TYP })
      .sign(forger);
    await expect(verifyJws(forged, await publicJwks())).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
    await expect(verifyJws(head.jws, await publicJwks())).resolves.toBeTruthy();
  });

  it('a record altered after logging no longer matches its leaf', async () => {
    const prisma = await testDb();
    await ingestRecords(
      host.id,
      [0, 1, 2].map((i) => makeRecord('alter', i)),
    );
    await appendAll(prisma);
    const [a, b, c] = await prisma.interceptionRecord.findMany({ orderBy: { id: 'asc' } });
    await prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" SET record = jsonb_set(record, '{verdict,decision}', '"deny"')
       WHERE id = $1`,
      a.id,
    );
    // A displayed column changed alone: the JSON (and the leaf) still say allow.
    await prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" SET decision = 'deny' WHERE id = $1`,
      b.id,
    );
    expect(await checkLeaf(prisma, String(a.id))).toMatchObject({ status: 'altered', index: 0 });
    expect(await checkLeaf(prisma, String(b.id))).toMatchObject({
      status: 'altered',
      index: 1,
      fields: ['decision'],
    });
    expect(await checkLeaf(prisma, String(c.id))).toMatchObject({ status: 'ok', index: 2 });
    await ingestRecords(host.id, [makeRecord('alter', 3)]);
    const d = await prisma.interceptionRecord.findFirstOrThrow({ where: { sequence: 3 } });
    expect(await checkLeaf(prisma, String(d.id))).toEqual({ status: 'not_logged' });
  });

  it('the background loop appends what ingest stored and signs a head for it', async () => {
    const prisma = await testDb();
    const loop = startTransparencyLoop({ intervalMs: 50, treeHeadIntervalMs: 0, db: testDb });
    try {
      await ingestRecords(
        host.id,
        [0, 1, 2].map((i) => makeRecord('loop', i)),
      );
      // Generous: the loop runs every 50 ms; this only bounds a hang.
      await vi.waitFor(
        async () => {
          expect(await prisma.logLeaf.count({ where: { kind: 'record' } })).toBe(
            await prisma.interceptionRecord.count(),
          );
          expect(await prisma.treeHead.findUnique({ where: { size: 3n } })).not.toBeNull();
        },
        { timeout: 10_000, interval: 50 },
      );
    } finally {
      await loop.stop();
    }
  });
});
