import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NextRequest } from 'next/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GET as exportRoute } from '@/app/api/audit/export/route';
import { GET as evidenceRoute } from '@/app/api/v1/audit/sessions/[id]/evidence/route';
import { GET as treeHeadRoute } from '@/app/api/v1/log/tree-head/route';
import { decideTicket } from '@/lib/server/approvals/decide';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { ingestRecords } from '@/lib/server/records/ingest';
import { forgetActiveSigningKey, publicJwks } from '@/lib/server/signing';
import {
  approvalRequest,
  type Body,
  hostWithKey,
  post,
  transferContext,
  userWith,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { makeRecord } from './records-fixtures';

/**
 * Issue 13 items 4 and 5 end to end on a real PostgreSQL: a session
 * ingested through the ingest service, with an approval ticket decided by a
 * reviewer, is downloaded as a JSONL export and as an evidence bundle, and
 * the published CLI (`node bin/agent-hooks.mjs`, a child process, no
 * database) verifies both with the public keys alone; the receipts in the
 * bundle verify on their own; a changed line fails.
 */

// "Who is signed in" is the only stub; routes, services and database run for real.
const session = vi.hoisted(() => ({
  user: null as null | { id: string; email: string; name: null; roles: string[] },
}));
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => session.user }));

const ROOT = path.resolve(__dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'audit-evidence-'));
let n = 0;
function file(content: string): string {
  const p = path.join(dir, `f${n++}`);
  writeFileSync(p, content);
  return p;
}

/** The published CLI as an auditor runs it: exit code and parsed `--json` output. */
function agentHooks(args: string[]): Promise<{ code: number; json: Body | null; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/agent-hooks.mjs', ...args],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: number }).code ?? -1) : 0;
        let json: Body | null = null;
        try {
          json = stdout ? JSON.parse(stdout) : null;
        } catch {
          json = null;
        }
        resolve({ code, json, err: stderr });
      },
    );
  });
}

async function text(res: Response): Promise<string> {
  return new Response(res.body).text();
}

function evidence(hostId: string, sessionId: string, key: string | null, extra = '') {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  const url = `http://localhost/api/v1/audit/sessions/${encodeURIComponent(sessionId)}/evidence?host_id=${hostId}${extra}`;
  return evidenceRoute(new NextRequest(url, { headers }), {
    params: Promise.resolve({ id: sessionId }),
  });
}

const SESSION = 'sess-evidence';
let host: { id: string; key: string };
let other: { id: string; key: string };
let auditor: { id: string };
let ticketId: string;
let jwksFile: string;

beforeAll(async () => {
  await truncateAll();
  forgetActiveSigningKey();
  host = await hostWithKey('billing');
  other = await hostWithKey('other');
  const reviewer = await userWith('rita@example.com', ['reviewer']);
  auditor = await userWith('ada@example.com', ['auditor']);

  // An escalation the agent raised, decided by a reviewer in the web UI's service.
  const body = approvalRequest(transferContext({}, SESSION));
  const created = await post(host.key, body);
  expect(created.status).toBe(201);
  ticketId = created.body.id as string;
  await decideTicket({
    ticketId,
    actor: { kind: 'human', userId: reviewer.id, auth: 'password' },
    outcome: 'approve',
    contextIdentity: body.context_identity as string,
  });
  const prisma = await testDb();
  const ticket = await prisma.approvalTicket.findUniqueOrThrow({ where: { id: ticketId } });

  // The host's records of the session, through ingest; one is the escalated call.
  const escalated = ticket.sequence ?? 1;
  const last = Math.max(escalated, 4);
  const records = Array.from({ length: last + 1 }, (_, i) =>
    makeRecord(
      SESSION,
      i,
      i === escalated ? { verdict: { decision: 'allow' }, resolved_by: 'approval' } : {},
    ),
  );
  await ingestRecords(host.id, records, { agentId: 'billing-bot' });
  await ingestRecords(other.id, [makeRecord('theirs', 0)], { agentId: 'x' });
  jwksFile = file(JSON.stringify(await publicJwks()));
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await stopApprovalsRuntime();
  await closeTestDb();
});

describe('evidence bundle and export, verified offline by the CLI', () => {
  it('the evidence bundle verifies with the JWKS it carries (exit 0), decisions included', async () => {
    const res = await evidence(host.id, SESSION, host.key);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const bundle = await text(res);
    const lines = bundle.trimEnd().split('\n');
    const header = JSON.parse(lines[0] as string);
    expect(header).toMatchObject({
      format: 'checkpoint-audit-export',
      version: 1,
      kind: 'evidence',
    });
    expect(header.scope).toEqual({ kind: 'session', host_id: host.id, session_id: SESSION });
    const kinds = lines.slice(1).map((l) => JSON.parse(l).kind);
    expect(kinds.filter((k) => k === 'record').length).toBeGreaterThanOrEqual(5);
    expect(kinds.filter((k) => k === 'decision')).toHaveLength(1);
    expect(kinds.at(-1)).toBe('end');

    const bundleFile = file(bundle);
    const embedded = file(JSON.stringify(header.jwks));
    const r = await agentHooks(['audit', 'verify', bundleFile, '--jwks', embedded, '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, decisions: 1, findings: [] });
    expect(r.json?.records).toBe(kinds.filter((k) => k === 'record').length);
    expect(r.json?.treeHead.size).toBe(header.tree_head.size);

    // The same bundle with one displayed column changed fails, naming the line.
    const at = lines.findIndex((l) => l.includes('"kind":"record"'));
    const tampered = lines.map((l, i) =>
      i === at ? l.replace('"decision":"allow"', '"decision":"deny"') : l,
    );
    expect(tampered[at]).not.toBe(lines[at]);
    const bad = await agentHooks([
      'audit',
      'verify',
      file(`${tampered.join('\n')}\n`),
      '--jwks',
      embedded,
      '--json',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.json?.ok).toBe(false);
    expect(bad.json?.findings[0]).toMatchObject({ problem: 'altered', sessionId: SESSION });
    expect(bad.json?.findings[0].detail).toContain(`line ${at + 1}:`);
  });

  it("the bundle's receipts verify on their own with `receipt verify`", async () => {
    const bundle = await text(await evidence(host.id, SESSION, host.key));
    const decision = bundle
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.kind === 'decision');
    expect(decision.leaf.ticket_id).toBe(ticketId);
    expect(decision.receipt).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const r = await agentHooks([
      'receipt',
      'verify',
      file(decision.receipt),
      '--jwks',
      jwksFile,
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true });
  });

  it('the JSONL export of the session verifies with the published JWKS', async () => {
    session.user = { id: auditor.id, email: 'ada@example.com', name: null, roles: ['auditor'] };
    try {
      const res = await exportRoute(
        new NextRequest(
          `http://localhost/api/audit/export?format=jsonl&scope=session&host=${host.id}&session=${SESSION}`,
        ),
        { params: Promise.resolve({}) },
      );
      expect(res.status).toBe(200);
      const r = await agentHooks([
        'audit',
        'verify',
        file(await text(res)),
        '--jwks',
        jwksFile,
        '--json',
      ]);
      expect(r.code).toBe(0);
      expect(r.json).toMatchObject({ ok: true, findings: [] });
      expect(r.json?.records).toBeGreaterThanOrEqual(5);
    } finally {
      session.user = null;
    }
  });

  it('?consistency_from=N proves the log grew from an older tree head given with --tree-head', async () => {
    // The tree head a host fetched earlier, kept as GET /api/v1/log/tree-head answered it.
    const older = await treeHeadRoute(
      new NextRequest('http://localhost/api/v1/log/tree-head', {
        headers: { authorization: `Bearer ${host.key}` },
      }),
      { params: Promise.resolve({}) },
    );
    expect(older.status).toBe(200);
    const olderHead = await older.json();
    const sthFile = file(JSON.stringify(olderHead));
    // The log grows after it.
    await ingestRecords(host.id, [makeRecord('later', 0), makeRecord('later', 1)], {
      agentId: 'billing-bot',
    });

    const res = await evidence(host.id, SESSION, host.key, `&consistency_from=${olderHead.size}`);
    expect(res.status).toBe(200);
    const bundle = await text(res);
    const header = JSON.parse(bundle.slice(0, bundle.indexOf('\n')));
    expect(header.tree_head.size).toBeGreaterThan(olderHead.size);
    expect(header.consistency).toEqual([
      expect.objectContaining({ from: olderHead.size, to: header.tree_head.size }),
    ]);
    const bundleFile = file(bundle);
    const args = [
      'audit',
      'verify',
      bundleFile,
      '--jwks',
      jwksFile,
      '--tree-head',
      sthFile,
      '--json',
    ];
    const r = await agentHooks(args);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, findings: [] });

    // Without the proof the CLI cannot check consistency: a usage-level error (exit 2) naming the fix.
    const plain = await text(await evidence(host.id, SESSION, host.key));
    const missing = await agentHooks([
      'audit',
      'verify',
      file(plain),
      '--jwks',
      jwksFile,
      '--tree-head',
      sthFile,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('consistency_from');

    // A size beyond the log is refused by the route.
    const beyond = await evidence(host.id, SESSION, host.key, '&consistency_from=999999');
    expect(beyond.status).toBe(400);
  });
});

describe('evidence route access', () => {
  it('a host API key reads its own session (200), not another host’s (404)', async () => {
    expect((await evidence(host.id, SESSION, host.key)).status).toBe(200);
    const foreign = await evidence(host.id, SESSION, other.key);
    expect(foreign.status).toBe(404);
    expect((await foreign.json()).error.code).toBe('not_found');
    // Its own host id with another host's session name: nothing there either.
    expect((await evidence(other.id, SESSION, other.key)).status).toBe(404);
  });

  it('no credentials is 401; a signed-in auditor reads any host’s session', async () => {
    const anonymous = await evidence(host.id, SESSION, null);
    expect(anonymous.status).toBe(401);
    session.user = { id: auditor.id, email: 'ada@example.com', name: null, roles: ['auditor'] };
    try {
      expect((await evidence(other.id, 'theirs', null)).status).toBe(200);
    } finally {
      session.user = null;
    }
  });

  it('a bad host id or query member is a 400, never a 5xx', async () => {
    const res = await evidenceRoute(
      new NextRequest(`http://localhost/api/v1/audit/sessions/${SESSION}/evidence?host_id=nope`, {
        headers: { authorization: `Bearer ${host.key}` },
      }),
      { params: Promise.resolve({ id: SESSION }) },
    );
    expect(res.status).toBe(400);
  });
});
