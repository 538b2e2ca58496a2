import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compactVerify, createLocalJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { exportRecords } from '@/lib/server/audit/export';
import { checkSessionIntegrity } from '@/lib/server/audit/integrity';
import { verifySessionChain } from '@/lib/server/records/verify';
import { publicJwksOf } from '@/lib/server/signing/publish';
import { checkLeaf } from '@/lib/server/transparency/check-leaf';
import { treeHeadFilePath } from '@/lib/server/transparency/publish-head';
import { latestTreeHead } from '@/lib/server/transparency/tree-head';
import { verifyLog } from '@/lib/server/transparency/verifier';
import { type IntegrityFinding, type IntegrityProblem, isFailure } from '@/lib/verify/findings';
import { closeTestDb, testDb } from './helpers/db';
import { testRedis } from './helpers/redis';
import {
  DENY_SEQ,
  deleteRecord,
  deleteTail,
  forgeTreeHead,
  type Genuine,
  insertForgedRecord,
  leafNames,
  rec,
  renumberSession,
  rewriteAndRechain,
  leafIndexOf,
  rowOf,
  unloggedRecordCount,
  runWorkerOnce,
  SESSION_A,
  SESSION_B,
  SESSION_LENGTH,
  seedGenuine,
  swapSequences,
  TICKET_SEQ,
  updateDisplayedColumns,
  updateRecordJson,
} from './tamper-fixtures';

/**
 * The tamper matrix (issue 13, "Tests that must exist"): each row is one
 * tampering a person with a database shell can do (tamper-fixtures.ts), each
 * column one of the three detectors: the session timeline
 * (checkSessionIntegrity), the background verifier (verifyLog) and the
 * offline `agent-hooks audit verify` over the session's JSONL export with
 * the JWKS the auditor fetched before the tampering. Every cell must fail
 * the data AND name what was tampered with (the record's id, or its session
 * and sequence; the tree head for a forged head). The untampered control
 * runs the same three, so every cell can fail.
 */

/**
 * Every signed tree head is also appended to a file outside the database
 * (TREE_HEAD_FILE), which the background verifier checks the log against.
 * Each scenario is a fresh deployment, so each gets a fresh file: this one,
 * set before the configuration is read, emptied by seedGenuine.
 */
const headFile = vi.hoisted(() => {
  const file = `${process.env.TMPDIR ?? '/tmp'}/tamper-matrix-${process.pid}-tree-heads.jsonl`;
  process.env.TREE_HEAD_FILE = file;
  return file;
});

// The approval routes used by the setup import the session module; no browser session here.
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

type Detector = 'timeline' | 'verifier' | 'offline';
const DETECTORS: Detector[] = ['timeline', 'verifier', 'offline'];

/** What a finding must point at: a record (by id, or session and sequence) or the tree head. */
type Named =
  | { record: { id: string; sessionId: string; sequence: number } }
  | { treeHead: { size: number; kid: string } };

type Tampered = { names: Named[]; changed?: string[]; forgedId?: string };

type Scenario = {
  name: string;
  /** The session whose timeline is checked and which is exported. */
  session: string;
  /** Any of these problems counts, for every named subject. */
  problems: IntegrityProblem[];
  tamper: (prisma: PrismaClient, g: Genuine) => Promise<Tampered>;
  /** Checked against the data directly, so a miss is the detector's, not the tampering's. */
  took: (prisma: PrismaClient, g: Genuine, t: Tampered) => Promise<void>;
  /** Detectors that cannot see this tampering by design, and why (an explicit expectation). */
  blind?: Partial<Record<Detector, string>>;
};

/** The genuine record at (session, sequence), named as it was stored. */
const named = (g: Genuine, sessionId: string, sequence: number): Named => ({
  record: { ...rec(g, sessionId, sequence) },
});
const nameOnly = (...names: Named[]): Tampered => ({ names });

const SCENARIOS: Scenario[] = [
  {
    name: '1. update a displayed column (decision deny→allow, reason NULL)',
    session: SESSION_A,
    problems: ['altered'],
    async tamper(prisma, g) {
      await updateDisplayedColumns(prisma, rec(g, SESSION_A, DENY_SEQ).id);
      return nameOnly(named(g, SESSION_A, DENY_SEQ));
    },
    async took(prisma, g) {
      const row = await rowOf(prisma, rec(g, SESSION_A, DENY_SEQ).id);
      expect(row).toMatchObject({ decision: 'allow', reason: null });
      expect(row?.record).toMatchObject({ verdict: { decision: 'deny' } });
      // The chain covers the JSON only: it still verifies.
      expect((await verifySessionChain(g.hostId, SESSION_A)).ok).toBe(true);
    },
  },
  {
    name: '2. update the JSON (verdict deny→allow), columns left',
    session: SESSION_A,
    problems: ['altered', 'proof_failed'],
    async tamper(prisma, g) {
      await updateRecordJson(prisma, rec(g, SESSION_A, DENY_SEQ).id);
      return nameOnly(named(g, SESSION_A, DENY_SEQ));
    },
    async took(prisma, g) {
      const row = await rowOf(prisma, rec(g, SESSION_A, DENY_SEQ).id);
      expect(row).toMatchObject({ decision: 'deny', record: { verdict: { decision: 'allow' } } });
    },
  },
  {
    name: '3. delete a middle record',
    session: SESSION_A,
    problems: ['missing'],
    async tamper(prisma, g) {
      await deleteRecord(prisma, rec(g, SESSION_A, 5).id);
      return nameOnly(named(g, SESSION_A, 5));
    },
    async took(prisma, g) {
      expect(await rowOf(prisma, rec(g, SESSION_A, 5).id)).toBeNull();
      expect(await leafNames(prisma, rec(g, SESSION_A, 5).id)).toBe(true);
    },
  },
  {
    name: '4. delete the first record',
    session: SESSION_A,
    problems: ['missing'],
    async tamper(prisma, g) {
      await deleteRecord(prisma, rec(g, SESSION_A, 0).id);
      return nameOnly(named(g, SESSION_A, 0));
    },
    async took(prisma, g) {
      expect(await rowOf(prisma, rec(g, SESSION_A, 0).id)).toBeNull();
      expect(await leafNames(prisma, rec(g, SESSION_A, 0).id)).toBe(true);
    },
  },
  {
    name: '5. delete the tail (last 3 records of a session)',
    session: SESSION_A,
    problems: ['truncated', 'missing'],
    async tamper(prisma, g) {
      await deleteTail(prisma, g, SESSION_A, 7);
      // The first deleted record must be named; the others may be.
      return nameOnly(named(g, SESSION_A, 7));
    },
    async took(_prisma, g) {
      const chain = await verifySessionChain(g.hostId, SESSION_A);
      // Every remaining link holds and there is no hole: only the head tells.
      expect(chain).toMatchObject({ ok: false, firstBrokenSequence: null, gaps: [] });
      expect(chain.head?.problem).toBe('truncated');
    },
  },
  {
    name: '5b. delete the tail and set the chain head back to the last remaining record',
    session: SESSION_A,
    problems: ['truncated', 'missing'],
    async tamper(prisma, g) {
      await deleteTail(prisma, g, SESSION_A, 7, { moveHead: true });
      return nameOnly(named(g, SESSION_A, 7));
    },
    async took(prisma, g) {
      // The session now looks complete: chain and head agree.
      expect(await verifySessionChain(g.hostId, SESSION_A)).toMatchObject({ ok: true, checked: 7 });
      expect(await leafNames(prisma, rec(g, SESSION_A, 7).id)).toBe(true);
    },
    // What remains of the session is genuine and complete by its own (moved)
    // head, and the deleted rows took their session id with them: the log
    // keeps only their leaf hashes (and LogLeaf's record ids), which say
    // nothing about the session. Only a walk of the whole log finds a leaf
    // whose record is gone: the background verifier.
    blind: {
      timeline: 'the deleted leaves no longer say which session they belonged to',
      offline: 'a session export cannot show records deleted together with their chain head',
    },
  },
  {
    name: '6. renumber sequences (+100 for a session, JSON and chain head too)',
    session: SESSION_B,
    problems: ['altered', 'out_of_order', 'missing', 'proof_failed'],
    async tamper(prisma, g) {
      await renumberSession(prisma, g, SESSION_B, 100);
      // By id, or by the sequence it shows now.
      return nameOnly({ record: { ...rec(g, SESSION_B, 0), sequence: 100 } });
    },
    async took(prisma, g) {
      const row = await rowOf(prisma, rec(g, SESSION_B, 0).id);
      expect(row).toMatchObject({ sequence: 100, record: { sequence: 100 } });
    },
  },
  {
    name: '7. rewrite a record and recompute every later chain hash and the head',
    session: SESSION_A,
    problems: ['altered', 'proof_failed'],
    async tamper(prisma, g) {
      const changed = await rewriteAndRechain(prisma, g);
      return { names: [named(g, SESSION_A, DENY_SEQ)], changed };
    },
    async took(prisma, g, t) {
      // What the issue found on main: the chain alone says "verified".
      expect(await verifySessionChain(g.hostId, SESSION_A)).toMatchObject({
        ok: true,
        checked: SESSION_LENGTH,
      });
      expect(t.changed).toHaveLength(SESSION_LENGTH - DENY_SEQ);
      expect((await checkLeaf(prisma, rec(g, SESSION_A, DENY_SEQ).id)).status).toBe('altered');
    },
  },
  {
    name: '8. reorder (swap two records: sequence and JSON sequence)',
    session: SESSION_A,
    problems: ['out_of_order', 'altered', 'proof_failed'],
    async tamper(prisma, g) {
      const [a, b] = [rec(g, SESSION_A, 5), rec(g, SESSION_A, 6)];
      await swapSequences(prisma, a, b);
      return nameOnly({ record: { ...a, sequence: 6 } }, { record: { ...b, sequence: 5 } });
    },
    async took(prisma, g) {
      expect(await rowOf(prisma, rec(g, SESSION_A, 5).id)).toMatchObject({ sequence: 6 });
      expect(await rowOf(prisma, rec(g, SESSION_A, 6).id)).toMatchObject({ sequence: 5 });
    },
  },
  {
    name: '9. insert a forged record (a branch off the middle of a session), then the appender runs',
    session: SESSION_A,
    problems: ['forged'],
    async tamper(prisma, g) {
      const forgedId = await insertForgedRecord(prisma, g, 'middle');
      const names: Named[] = [
        { record: { id: forgedId, sessionId: SESSION_A, sequence: SESSION_LENGTH } },
      ];
      return { names, forgedId };
    },
    async took(prisma, g, t) {
      const row = await rowOf(prisma, t.forgedId as string);
      const branchedOff = await rowOf(prisma, rec(g, SESSION_A, TICKET_SEQ).id);
      expect(row?.prevHash).toBe(branchedOff?.chainHash);
      // The appender refused it: not in the log, and "LogRefusal" says so.
      expect(await leafIndexOf(prisma, t.forgedId as string)).toBeNull();
      const refusals = await prisma.$queryRawUnsafe<{ reason: string }[]>(
        `SELECT reason FROM "LogRefusal" WHERE kind = 'record' AND "refId" = $1`,
        t.forgedId,
      );
      expect(refusals).toHaveLength(1);
    },
  },
  {
    name: '9b. insert a forged record at the tail, chain head moved on (all ingest writes but the seal)',
    session: SESSION_A,
    problems: ['forged'],
    async tamper(prisma, g) {
      const forgedId = await insertForgedRecord(prisma, g, 'tail');
      const names: Named[] = [
        { record: { id: forgedId, sessionId: SESSION_A, sequence: SESSION_LENGTH } },
      ];
      return { names, forgedId };
    },
    async took(prisma, g, t) {
      // The chain and its head agree with the forgery: no SHA-256 check can tell…
      expect(await verifySessionChain(g.hostId, SESSION_A)).toMatchObject({
        ok: true,
        checked: SESSION_LENGTH + 1,
      });
      // …but the row carries no ingest seal (an HMAC under a key derived from
      // APP_ENCRYPTION_KEY, which the database does not hold): refused, not logged.
      expect(await leafIndexOf(prisma, t.forgedId as string)).toBeNull();
      const refusals = await prisma.$queryRawUnsafe<{ reason: string }[]>(
        `SELECT reason FROM "LogRefusal" WHERE kind = 'record' AND "refId" = $1`,
        t.forgedId,
      );
      expect(refusals).toEqual([{ reason: 'seal_missing' }]);
    },
  },
  // The data under a forged head is consistent with it (every leaf, node and
  // the root recomputed), so no record can be named: what is named is the
  // tree head, whose signature, or consistency with a head kept outside the
  // database, fails. 10a/10b sign with the attacker's key under the genuine
  // or a new kid; 10c also plants that key in SigningKey (a public JWK and a
  // private key the deployment cannot decrypt): the deployment must neither
  // publish nor trust it, so the timeline and verifier refuse the head as
  // signed by a key that is not authentic, and the auditor's earlier JWKS
  // and the heads kept outside the database tell as well.
  ...(['same', 'new', 'planted'] as const).map(
    (kid): Scenario => ({
      name: `10${{ same: 'a', new: 'b', planted: 'c' }[kid]}. replace the latest tree head with a self-consistent forgery (other key, ${kid} kid)`,
      session: SESSION_A,
      problems: ['tree_head_invalid', 'inconsistent'],
      async tamper(prisma, g) {
        const changed = await rewriteAndRechain(prisma, g);
        const forged = await forgeTreeHead(prisma, changed, kid);
        return { names: [{ treeHead: forged }], changed };
      },
      async took(prisma, g, t) {
        // Self-consistent: chain, head, every leaf and the stored root agree with the altered data…
        expect((await verifySessionChain(g.hostId, SESSION_A)).ok).toBe(true);
        for (const id of t.changed ?? []) expect((await checkLeaf(prisma, id)).status).toBe('ok');
        const head = await latestTreeHead(prisma);
        expect(head?.size).toBe(g.treeHead.size);
        expect(head?.root_hash).not.toBe(g.treeHead.root_hash);
        // …but the signature is not the deployment's (as the auditor knew its keys).
        await expect(compactVerify(head!.jws, createLocalJWKSet(g.jwks))).rejects.toThrow();
        if (kid === 'planted') {
          // The planted key is stored, yet the deployment does not publish it.
          const forged = t.names[0] as { treeHead: { kid: string } };
          expect(await prisma.signingKey.count({ where: { kid: forged.treeHead.kid } })).toBe(1);
          const published = (await publicJwksOf(prisma)).keys.map((k) => k.kid);
          expect(published).not.toContain(forged.treeHead.kid);
        }
      },
    }),
  ),
];

// ---------------------------------------------------------------------------
// The three detectors, each reduced to {ok, findings}.

type Verdict = { ok: boolean; findings: IntegrityFinding[]; said: string };

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let scratch: string;

async function timelineSays(g: Genuine, session: string): Promise<Verdict> {
  const r = await checkSessionIntegrity(g.hostId, session);
  return { ok: r.ok, findings: r.findings, said: JSON.stringify(r.findings) };
}

async function verifierSays(prisma: PrismaClient): Promise<Verdict> {
  const r = await verifyLog(prisma);
  if (!r.ok) expect(r.firstFailure).toEqual(r.findings.find(isFailure));
  return { ok: r.ok, findings: r.findings, said: JSON.stringify(r.findings) };
}

/** `agent-hooks audit verify` as an auditor runs it: the export and the keys they fetched earlier. */
async function offlineSays(g: Genuine, session: string, label: string): Promise<Verdict> {
  const stream = await exportRecords(
    g.auditor,
    { kind: 'session', hostId: g.hostId, sessionId: session },
    'jsonl',
  );
  const file = join(scratch, `${label}.jsonl`);
  const jwks = join(scratch, `${label}.jwks.json`);
  writeFileSync(file, await new Response(stream.body).text());
  writeFileSync(jwks, JSON.stringify(g.jwks));
  const { code, stdout, stderr } = await new Promise<{
    code: number;
    stdout: string;
    stderr: string;
  }>((resolve) => {
    execFile(
      process.execPath,
      ['bin/agent-hooks.mjs', 'audit', 'verify', file, '--jwks', jwks, '--json'],
      { cwd: ROOT, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (err, out, errOut) =>
        resolve({ code: err ? Number(err.code ?? -1) : 0, stdout: out, stderr: errOut }),
    );
  });
  if (code === 2 || code < 0)
    throw new Error(`audit verify could not run (exit ${code}): ${stderr}`);
  const report = JSON.parse(stdout) as { ok: boolean; findings: IntegrityFinding[] };
  expect(report.ok).toBe(code === 0);
  return { ok: code === 0, findings: report.findings, said: `exit ${code}: ${stdout.trim()}` };
}

/** What each detector said per scenario, printed at the end as the matrix. */
const said = new Map<string, string>();

function summary(v: Verdict): string {
  if (v.ok) return 'ok';
  const parts = v.findings.filter(isFailure).map((f) => {
    const at =
      f.subject === 'tree_head'
        ? 'head'
        : `#${f.recordId ?? '-'}/${f.sessionId ?? '-'}:${f.sequence ?? '-'}`;
    return `${f.problem} ${at}`;
  });
  return [...new Set(parts)].slice(0, 6).join('; ') + (parts.length > 6 ? '; …' : '');
}

function matrixTable(): string {
  const rows = [...said.entries()].map(([k, v]) => `${k} → ${v}`);
  return `tamper matrix (detector verdicts):\n${rows.join('\n')}`;
}

function matches(f: IntegrityFinding, n: Named): boolean {
  if ('treeHead' in n) return f.subject === 'tree_head';
  const r = n.record;
  return f.recordId === r.id || (f.sessionId === r.sessionId && f.sequence === r.sequence);
}

/** The sentence a person reads names it too: the record's id or sequence, the head's size or key. */
function detailNames(detail: string, n: Named): boolean {
  if ('treeHead' in n) {
    const { size, kid } = n.treeHead;
    return new RegExp(`\\b${size}\\b`).test(detail) || detail.includes(kid);
  }
  const { id, sequence } = n.record;
  return new RegExp(`\\b(record ${id}|sequences? ${sequence})\\b`, 'i').test(detail);
}

/** The detector failed the data, and for each named subject a failure with an expected problem names it. */
function expectDetectedAndNamed(v: Verdict, s: Scenario, t: Tampered): void {
  expect(v.ok, v.said).toBe(false);
  const failures = v.findings.filter(isFailure);
  for (const n of t.names) {
    const hit = failures.find((f) => s.problems.includes(f.problem) && matches(f, n));
    expect(
      hit,
      `no ${s.problems.join('|')} finding naming ${JSON.stringify(n)} in ${v.said}`,
    ).toBeDefined();
    expect(detailNames(hit?.detail ?? '', n), hit?.detail).toBe(true);
  }
}

beforeAll(async () => {
  // Never empty a file the configuration did not take from this test.
  expect(treeHeadFilePath()).toBe(headFile);
  scratch = mkdtempSync(join(tmpdir(), 'tamper-matrix-'));
  const { url, prefix } = testRedis();
  await configureTicketEvents({ redisUrl: url, channel: `${prefix}tickets` });
});
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(headFile, { force: true });
  delete process.env.TREE_HEAD_FILE;
  console.log(matrixTable());
  await stopApprovalsRuntime();
  await closeTestDb();
});

describe('control: the untampered data', () => {
  let g: Genuine;
  beforeAll(async () => {
    g = await seedGenuine(headFile);
  });

  it('is what the matrix assumes: a logged decision with a receipt, its record linked, one signed head', async () => {
    const prisma = await testDb();
    const decision = await prisma.decision.findUniqueOrThrow({ where: { id: g.decisionId } });
    expect(decision.receipt).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(decision.logIndex).not.toBeNull();
    const linked = await rowOf(prisma, rec(g, SESSION_A, TICKET_SEQ).id);
    expect(linked?.ticketId).toBe(g.ticketId);
    expect(await unloggedRecordCount(prisma)).toBe(0);
    expect(g.treeHead.size).toBe(2 * SESSION_LENGTH + 1);
  });
  it('the timeline verifies both sessions', async () => {
    for (const s of [SESSION_A, SESSION_B]) {
      const v = await timelineSays(g, s);
      said.set(`  0 timeline ${s}`, summary(v));
      expect(v.ok, v.said).toBe(true);
      expect(v.findings.filter(isFailure)).toEqual([]);
    }
  });
  it('the background verifier passes the whole log', async () => {
    const v = await verifierSays(await testDb());
    said.set('  0 verifier', summary(v));
    expect(v.ok, v.said).toBe(true);
  });
  it('audit verify passes the export (exit 0)', async () => {
    for (const s of [SESSION_A, SESSION_B]) {
      const v = await offlineSays(g, s, `control-${s}`);
      said.set(`  0 offline  ${s}`, summary(v));
      expect(v.ok, v.said).toBe(true);
    }
  });
});

describe.each(SCENARIOS)('$name', (s) => {
  let g: Genuine;
  let t: Tampered;
  let prisma: PrismaClient;
  beforeAll(async () => {
    g = await seedGenuine(headFile);
    prisma = await testDb();
    t = await s.tamper(prisma, g);
    await runWorkerOnce(prisma);
  });

  it('the tampering took effect as intended', async () => {
    await s.took(prisma, g, t);
  });
  for (const d of DETECTORS) {
    const blind = s.blind?.[d];
    it(blind ? `${d} cannot see it: ${blind}` : `${d} detects it and names it`, async () => {
      const v =
        d === 'timeline'
          ? await timelineSays(g, s.session)
          : d === 'verifier'
            ? await verifierSays(prisma)
            : await offlineSays(g, s.session, s.name.slice(0, 3).replace(/\W/g, ''));
      said.set(`${s.name.split('.')[0].padStart(3)} ${d.padEnd(8)}`, summary(v));
      if (blind) expect(v.ok, v.said).toBe(true);
      else expectDetectedAndNamed(v, s, t);
    });
  }
});
