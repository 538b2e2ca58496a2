import { NextRequest } from 'next/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GET } from '@/app/api/audit/export/route';
import { EXPORT_CHUNK } from '@/lib/server/audit/export';
import { insertRows, seedHostRow, seedUser } from './audit-seed';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

// The session comes from Auth.js inside Next (signed in for real in
// tests/e2e/audit.spec.ts); here only "who is signed in" is stubbed, and
// the route, the role checks and the database run for real.
const session = vi.hoisted(() => ({
  user: null as null | { id: string; email: string; name: null; roles: string[] },
}));
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => session.user }));

const ctx = { params: Promise.resolve({}) };

async function get(query: string) {
  return GET(new NextRequest(`http://localhost/api/audit/export?${query}`), ctx);
}

/** Reads a streamed body chunk by chunk; returns the text and how many chunks came. */
async function readStream(res: Response): Promise<{ text: string; chunks: number }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let chunks = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text, chunks };
    chunks++;
    text += decoder.decode(value, { stream: true });
  }
}

/** A strict RFC 4180 parser, written here independently of lib/server/audit/csv.ts. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
      } else {
        field += c;
        i++;
      }
    } else if (c === '"' && field === '') {
      quoted = true;
      i++;
    } else if (c === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 2;
    } else if (c === '\n' || c === '\r' || c === '"') {
      throw new Error(`bare ${JSON.stringify(c)} at ${i}`);
    } else {
      field += c;
      i++;
    }
  }
  if (field !== '' || row.length) throw new Error('unterminated last line');
  return rows;
}

const T0 = Date.parse('2026-11-30T12:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000);

describe('GET /api/audit/export', () => {
  let auditor: { id: string; roles: string[] };
  let reviewer: { id: string; roles: string[] };
  let host: string;
  let other: string;

  beforeAll(async () => {
    await truncateAll();
    auditor = await seedUser('aud@example.com', ['auditor']);
    reviewer = await seedUser('rev@example.com', ['reviewer']);
    host = await seedHostRow('export-host');
    other = await seedHostRow('other-host');
    await insertRows(host, [
      {
        sessionId: 'x-1',
        sequence: 1,
        receivedAt: at(2),
        decision: 'deny',
        reason: 'a,b "quoted"\nline two',
      },
      {
        sessionId: 'x-1',
        sequence: 0,
        receivedAt: at(3),
        decision: 'deny',
        reason: '=HYPERLINK("http://x")',
      },
      { sessionId: 'x-1', sequence: 2, receivedAt: at(1), agentId: ' padded ' },
      {
        hostFailure: true,
        receivedAt: at(4),
        decision: 'deny',
        reason: 'host_error:context_invalid',
      },
    ]);
    await insertRows(other, [{ sessionId: 'x-1', sequence: 0, receivedAt: at(5) }]);
  });
  afterAll(closeTestDb);

  const as = (u: { id: string; roles: string[] } | null) => {
    session.user = u && { id: u.id, email: 'x@example.com', name: null, roles: u.roles };
  };

  it('refuses reviewers (403) and anonymous callers (401), and bad parameters (400)', async () => {
    as(reviewer);
    const denied = await get('format=jsonl');
    expect(denied.status).toBe(403);
    expect((await denied.json()).error.code).toBe('forbidden');
    as(null);
    expect((await get('format=jsonl')).status).toBe(401);
    as(auditor);
    const cases: [string, string][] = [
      ['format=xml', 'format_invalid'],
      ['', 'format_invalid'],
      ['format=csv&decision=maybe', 'filter_invalid'],
      ['format=csv&scope=session&session=x-1', 'filter_invalid'],
    ];
    for (const [query, code] of cases) {
      const res = await get(query);
      expect([res.status, (await res.json()).error.code], query).toEqual([400, code]);
    }
  });

  it('streams the query as JSONL, oldest first, each line the stored record with its host', async () => {
    as(auditor);
    const res = await get(`format=jsonl&host=${host}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="audit-.*\.jsonl"$/,
    );
    expect(res.headers.get('x-total-count')).toBe('4');
    const { text } = await readStream(res);
    expect(text.endsWith('\n')).toBe(true);
    const all = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    // The signed format (lib/verify/export-format.ts): header, record lines, end line.
    expect(all[0]).toMatchObject({ format: 'checkpoint-audit-export', version: 1, kind: 'export' });
    expect(typeof all[0].tree_head.jws).toBe('string');
    expect(all.at(-1)).toEqual({ kind: 'end', records: 4, decisions: 0 });
    const lines = all.slice(1, -1).map((l) => ({ ...l, ...l.leaf }));
    // Seeded rows never went through ingest, so the log refuses them: exported without a proof
    // (the offline verifier fails such lines closed).
    expect(lines.every((l) => l.leaf_index === null && l.proof === null)).toBe(true);
    expect(lines.map((l) => [l.record.session_id, l.record.sequence])).toEqual([
      ['x-1', 2],
      ['x-1', 1],
      ['x-1', 0],
      ['', -1],
    ]);
    expect(lines[1]).toMatchObject({
      host: 'export-host',
      host_id: host,
      received_at: '2026-11-30T12:00:02.000Z',
      record: { verdict: { decision: 'deny', reason: 'a,b "quoted"\nline two' } },
    });
    expect(typeof lines[1].chain_hash).toBe('string');
  });

  it('streams CSV with RFC 4180 quoting and spreadsheet formulas defused', async () => {
    as(auditor);
    const res = await get(`format=csv&host=${host}&session=x-1`);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const { text } = await readStream(res);
    const rows = parseCsv(text);
    const header = rows[0] as string[];
    expect(header.slice(0, 6)).toEqual([
      'id',
      'received_at',
      'host',
      'host_id',
      'session_id',
      'sequence',
    ]);
    const col = (name: string) => header.indexOf(name);
    const body = rows.slice(1);
    expect(body.map((r) => r[col('sequence')])).toEqual(['2', '1', '0']);
    expect(body[1]?.[col('reason')]).toBe('a,b "quoted"\nline two');
    expect(body[2]?.[col('reason')]).toBe(`'=HYPERLINK("http://x")`);
    expect(body[0]?.[col('agent_id')]).toBe(' padded ');
    expect(body[0]?.[col('fold_truncated')]).toBe('');
    expect(body[0]?.[col('host_failure')]).toBe('false');
    expect(body.every((r) => r.length === header.length)).toBe(true);
  });

  it('exports one session of one host in sequence order', async () => {
    as(auditor);
    const res = await get(`format=jsonl&scope=session&host=${host}&session=x-1`);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="session-x-1.jsonl"');
    expect(res.headers.get('x-total-count')).toBe('3');
    const lines = (await readStream(res)).text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
      .slice(1, -1);
    expect(lines.map((l) => [l.host, l.leaf.record.sequence])).toEqual([
      ['export-host', 0],
      ['export-host', 1],
      ['export-host', 2],
    ]);
  });

  it('streams a large export in keyset chunks: every row once, in order', async () => {
    const prisma = await testDb();
    const big = await seedHostRow('big-host');
    const n = EXPORT_CHUNK * 2 + 345;
    // Every 10 share one millisecond, so chunk boundaries fall inside ties.
    await prisma.interceptionRecord.createMany({
      data: Array.from({ length: n }, (_, i) => ({
        hostId: big,
        sessionId: 'big',
        sequence: i,
        interceptionPoint: 'pre_tool_call',
        mode: 'enforce',
        decision: 'allow',
        record: { session_id: 'big', sequence: i },
        chainHash: `h${i}`,
        contentHash: `c${i}`,
        receivedAt: at(100 + Math.floor(i / 10)),
      })),
    });
    as(auditor);
    const res = await get(`format=csv&host=${big}`);
    expect(res.headers.get('x-total-count')).toBe(String(n));
    const { text, chunks } = await readStream(res);
    expect(chunks).toBeGreaterThanOrEqual(3);
    const rows = parseCsv(text).slice(1);
    const seqCol = parseCsv(text)[0]?.indexOf('sequence') as number;
    expect(rows.map((r) => Number(r[seqCol]))).toEqual(Array.from({ length: n }, (_, i) => i));

    const session = await get(`format=jsonl&scope=session&host=${big}&session=big`);
    const lines = (await readStream(session)).text.trimEnd().split('\n');
    expect(lines).toHaveLength(n + 2);
    expect(JSON.parse(lines.at(-2) as string).leaf.record.sequence).toBe(n - 1);
  });
});
