import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '@/bin/cli';
import { assembleRoot, toHex } from '@/lib/proof';
import { verifyExportFile } from '@/lib/verify/export-file';
import { TREE_HEAD_TYP } from '@/lib/verify/jws';
import { ChunkBuffers, forEachChunk } from '@/lib/verify/read-lines';
import {
  buildExport,
  buildRows,
  decisionRow,
  type ExportFixture,
  jwksOf,
  type SigningKey,
  sign,
  throwawayKey,
} from './fixtures/audit-export';

/**
 * `agent-hooks audit verify` and `receipt verify`, run through the CLI's
 * own entry point on synthetic exports signed with throwaway keys: every
 * tamper must fail (exit 1) and name the line and the record.
 */

const dir = mkdtempSync(path.join(tmpdir(), 'audit-verify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function file(content: string | object): string {
  const p = path.join(dir, `f${n++}`);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

async function cli(args: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const code = await main(args, { stdin: new PassThrough(), stdout, stderr });
  return { code, out, err };
}

async function verify(lines: string[], key: SigningKey | SigningKey[], extra: string[] = []) {
  const keys = Array.isArray(key) ? key : [key];
  const r = await cli([
    'audit',
    'verify',
    file(`${lines.join('\n')}\n`),
    '--jwks',
    file(jwksOf(...keys)),
    '--json',
    ...extra,
  ]);
  return { ...r, json: r.out ? JSON.parse(r.out) : null };
}

/** Replaces the first occurrence of `from` in line `i` (0-based, header is 0). */
const edit = (lines: string[], i: number, from: string, to: string) =>
  lines.map((l, k) => (k === i ? l.replace(from, to) : l));

let fx: ExportFixture;
let decisionFx: ExportFixture;

beforeAll(async () => {
  // 3 sessions × 4 records, arriving interleaved: lines 1..12 (line i+1 = leaf i).
  fx = await buildExport(buildRows({ sessions: 3, perSession: 4 }));
  const rows = buildRows({ sessions: 1, perSession: 2 });
  const key = await throwawayKey();
  rows.push(await decisionRow(key, '11111111-2222-4333-8444-555555555555'));
  decisionFx = await buildExport(rows, { key, kind: 'evidence' });
});

describe('audit verify', () => {
  it('verifies an intact export (exit 0) and says what it checked', async () => {
    const r = await verify(fx.lines, fx.key);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, records: 12, decisions: 0, findings: [] });
    expect(r.json.treeHead).toMatchObject({ size: 12, root_hash: fx.root, kid: fx.key.kid });
    const human = await cli([
      'audit',
      'verify',
      file(`${fx.lines.join('\n')}\n`),
      '--jwks',
      file(jwksOf(fx.key)),
    ]);
    expect(human.out).toMatch(
      /^verified: 12 records and 0 decisions against the tree head size 12/,
    );
  });

  it('names an altered record (its JSON changed): exit 1, line, record, session, sequence', async () => {
    // Line 4 is leaf 3: session s-0, sequence 1 (record id 4). Change its decision in the leaf and the column.
    const line = fx.lines[4] as string;
    expect(line).toContain('"session_id":"s-0"');
    const tampered = fx.lines.map((l, k) =>
      k === 4 ? l.replaceAll('"decision":"allow"', '"decision":"deny"') : l,
    );
    const r = await verify(tampered, fx.key);
    expect(r.code).toBe(1);
    expect(r.json.ok).toBe(false);
    expect(r.json.findings[0]).toMatchObject({
      problem: 'altered',
      recordId: '4',
      sessionId: 's-0',
      sequence: 1,
      leafIndex: 3,
    });
    expect(r.json.findings[0].detail).toMatch(
      /^line 5: record 4 \(session s-0, sequence 1\): altered — /,
    );
    const human = await cli([
      'audit',
      'verify',
      file(`${tampered.join('\n')}\n`),
      '--jwks',
      file(jwksOf(fx.key)),
    ]);
    expect(human.code).toBe(1);
    expect(human.out).toContain('line 5: record 4 (session s-0, sequence 1): altered — ');
  });

  it('names a displayed column that disagrees with the record JSON', async () => {
    const r = await verify(
      edit(
        fx.lines,
        2,
        '"mode":"enforce","decision":"allow","reason"',
        '"mode":"enforce","decision":"deny","reason"',
      ),
      fx.key,
    );
    expect(r.code).toBe(1);
    expect(r.json.findings).toHaveLength(1);
    expect(r.json.findings[0]).toMatchObject({ problem: 'altered', recordId: '2' });
    expect(r.json.findings[0].detail).toContain('displayed decision disagrees');
  });

  it('refuses a tree head signed by another key (wrong JWKS, or a forged head)', async () => {
    const other = await throwawayKey();
    const wrong = await verify(fx.lines, other);
    expect(wrong.code).toBe(1);
    expect(wrong.json.findings).toEqual([
      expect.objectContaining({ problem: 'tree_head_invalid', subject: 'tree_head' }),
    ]);
    expect(wrong.json.findings[0].detail).toContain('not in the given JWKS');
    // A self-consistent forgery naming the real key id but signed by another key.
    const header = JSON.parse(fx.lines[0] as string);
    const forged = await sign(
      { ...other, kid: fx.key.kid },
      {
        size: header.tree_head.size,
        root_hash: header.tree_head.root_hash,
        timestamp: header.tree_head.timestamp,
        kid: fx.key.kid,
      },
      TREE_HEAD_TYP,
    );
    header.tree_head.jws = forged;
    const r = await verify([JSON.stringify(header), ...fx.lines.slice(1)], fx.key);
    expect(r.code).toBe(1);
    expect(r.json.findings[0].detail).toContain('signature does not verify');
  });

  it('verifies a head signed before a key rotation with the published old key', async () => {
    const newer = await throwawayKey();
    const r = await verify(fx.lines, [newer, fx.key]);
    expect(r.code).toBe(0);
  });

  it('fails closed on a line without an inclusion proof (not covered by the tree head)', async () => {
    const line = fx.lines[6] as string;
    const noProof = line.replace(
      /"leaf_index":\d+,"proof":\[[^\]]*\]/,
      '"leaf_index":null,"proof":null',
    );
    expect(noProof).not.toBe(line);
    const r = await verify(
      fx.lines.map((l, k) => (k === 6 ? noProof : l)),
      fx.key,
    );
    expect(r.code).toBe(1);
    expect(r.json.findings[0]).toMatchObject({ problem: 'forged', recordId: '6' });
    expect(r.json.findings[0].detail).toContain('no inclusion proof');
  });

  it('names a truncated session (its tail deleted) and a record missing from the middle', async () => {
    // Session s-2's last record is line 12 (record 12, sequence 3): drop it, fix the end count.
    const cut = [...fx.lines.slice(0, 12), '{"kind":"end","records":11,"decisions":0}'];
    const r = await verify(cut, fx.key);
    expect(r.code).toBe(1);
    expect(r.json.findings).toEqual([
      expect.objectContaining({
        problem: 'truncated',
        subject: 'session',
        sessionId: 's-2',
        // The first record gone, by its sequence (its id went with it).
        recordId: null,
        sequence: 3,
      }),
    ]);
    expect(r.json.findings[0].detail).toMatch(
      /^session s-2: truncated — sequence 3 is not in the export: it ends at record 9 \(line 10, sequence 2\)/,
    );
    // Session s-1, sequence 1 is line 5 (record 5).
    const holed = [
      ...fx.lines.slice(0, 5),
      ...fx.lines.slice(6, 13),
      '{"kind":"end","records":11,"decisions":0}',
    ];
    const m = await verify(holed, fx.key);
    expect(m.code).toBe(1);
    // Named by the missing sequence, with the record after the gap for orientation.
    expect(m.json.findings).toEqual([
      expect.objectContaining({
        problem: 'missing',
        sessionId: 's-1',
        sequence: 1,
        recordId: null,
      }),
    ]);
    expect(m.json.findings[0].detail).toBe(
      'session s-1: missing — sequence 1 is not in the export (before line 8: record 8 (session s-1, sequence 2))',
    );
  });

  it('notices a file cut short (no end line)', async () => {
    const r = await verify(fx.lines.slice(0, -1), fx.key);
    expect(r.code).toBe(1);
    expect(r.json.findings).toEqual([expect.objectContaining({ problem: 'truncated' })]);
  });

  it('checks decision lines: the receipt bound by the leaf and signed by a published key', async () => {
    const ok = await verify(decisionFx.lines, decisionFx.key);
    expect(ok.json).toMatchObject({ ok: true, records: 2, decisions: 1 });
    const line = decisionFx.lines[3] as string;
    const receipt = JSON.parse(`${line.slice(0, line.indexOf(',"leaf":'))}}`).receipt as string;
    const other = await throwawayKey();
    const swapped = line.replace(
      receipt,
      await sign(other, { ticket_id: 'x' }, 'checkpoint-receipt+jws'),
    );
    const r = await verify(
      decisionFx.lines.map((l, k) => (k === 3 ? swapped : l)),
      decisionFx.key,
    );
    expect(r.code).toBe(1);
    expect(r.json.findings[0]).toMatchObject({
      problem: 'altered',
      subject: 'decision',
      ticketId: '11111111-2222-4333-8444-555555555555',
    });
    expect(r.json.findings[0].detail).toContain('receipt_sha256');
  });

  it('checks consistency with an older tree head, and says how to get the proof when it is absent', async () => {
    const rows = buildRows({ sessions: 2, perSession: 5 });
    const key = await throwawayKey();
    const full = await buildExport(rows, { key, consistencyFrom: [7] });
    const olderRoot = toHex(assembleRoot(7, full.log.lookup));
    const older = await sign(
      key,
      { size: 7, root_hash: olderRoot, timestamp: 1, kid: key.kid },
      TREE_HEAD_TYP,
    );
    const sth = file({ size: 7, root_hash: olderRoot, timestamp: 1, kid: key.kid, jws: older });
    expect((await verify(full.lines, key, ['--tree-head', sth])).code).toBe(0);
    // A bare JWS works too; a head of another history does not.
    const forkRoot = 'ab'.repeat(32);
    const fork = await sign(
      key,
      { size: 7, root_hash: forkRoot, timestamp: 1, kid: key.kid },
      TREE_HEAD_TYP,
    );
    const bad = await verify(full.lines, key, ['--tree-head', file(fork)]);
    expect(bad.code).toBe(1);
    expect(bad.json.findings[0]).toMatchObject({ problem: 'inconsistent' });
    const sixRoot = toHex(assembleRoot(6, full.log.lookup));
    const six = await sign(
      key,
      { size: 6, root_hash: sixRoot, timestamp: 1, kid: key.kid },
      TREE_HEAD_TYP,
    );
    const absent = await verify(full.lines, key, ['--tree-head', file(six)]);
    expect(absent.code).toBe(2);
    expect(JSON.parse(absent.err).error).toMatchObject({ code: 'consistency_proof_missing' });
    expect(absent.err).toContain('?consistency_from=6');
  });

  it('answers usage errors and unreadable input with exit 2', async () => {
    expect((await cli(['audit', 'verify'])).code).toBe(2);
    expect((await cli(['audit', 'verify', 'x.jsonl'])).code).toBe(2);
    const missing = await cli([
      'audit',
      'verify',
      path.join(dir, 'nope'),
      '--jwks',
      file(jwksOf(fx.key)),
    ]);
    expect([missing.code, JSON.parse(missing.err).error.code]).toEqual([2, 'input_unreadable']);
    const notJwks = await cli(['audit', 'verify', file('x'), '--jwks', file({ nope: 1 })]);
    expect([notJwks.code, JSON.parse(notJwks.err).error.code]).toEqual([2, 'jwks_invalid']);
    const notExport = await cli([
      'audit',
      'verify',
      file('{"id":"1"}\n'),
      '--jwks',
      file(jwksOf(fx.key)),
    ]);
    expect([notExport.code, JSON.parse(notExport.err).error.code]).toEqual([2, 'export_invalid']);
  });
});

describe('receipt verify', () => {
  it('prints the verified claims, and refuses another key or an altered receipt', async () => {
    const key = await throwawayKey();
    const jws = await sign(key, { ticket_id: 't-1', outcome: 'approve' }, 'checkpoint-receipt+jws');
    const ok = await cli([
      'receipt',
      'verify',
      file(`${jws}\n`),
      '--jwks',
      file(jwksOf(key)),
      '--json',
    ]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toEqual({
      ok: true,
      kid: key.kid,
      claims: { outcome: 'approve', ticket_id: 't-1' },
    });
    const human = await cli(['receipt', 'verify', file(jws), '--jwks', file(jwksOf(key))]);
    expect(human.out).toContain('ticket_id: t-1');
    const other = await cli([
      'receipt',
      'verify',
      file(jws),
      '--jwks',
      file(jwksOf(await throwawayKey())),
      '--json',
    ]);
    expect([other.code, JSON.parse(other.out).code]).toEqual([1, 'jws_key_unknown']);
    const [h, , s] = jws.split('.');
    const altered = `${h}.${Buffer.from('{"outcome":"reject","ticket_id":"t-1"}').toString('base64url')}.${s}`;
    const bad = await cli([
      'receipt',
      'verify',
      file(altered),
      '--jwks',
      file(jwksOf(key)),
      '--json',
    ]);
    expect([bad.code, JSON.parse(bad.out).code]).toEqual([1, 'jws_signature_invalid']);
    const treeHead = await sign(key, { size: 1 }, TREE_HEAD_TYP);
    const wrongType = await cli([
      'receipt',
      'verify',
      file(treeHead),
      '--jwks',
      file(jwksOf(key)),
      '--json',
    ]);
    expect([wrongType.code, JSON.parse(wrongType.out).code]).toEqual([1, 'jws_wrong_type']);
  });
});

describe('audit verify on worker threads', () => {
  // Chunks of ~1 KB hold one or two lines each, so lines of one session,
  // duplicates and the end line land on different workers.
  const both = async (lines: string[], key: SigningKey) => {
    const path = file(`${lines.join('\n')}\n`);
    const jwks = jwksOf(key);
    const one = await verifyExportFile(path, { jwks, workers: 0, chunkBytes: 1024 });
    const two = await verifyExportFile(path, { jwks, workers: 2, chunkBytes: 1024 });
    return { one, two };
  };

  it('gives the same verdict and findings as one thread, intact and tampered', async () => {
    const variants: string[][] = [
      fx.lines,
      fx.lines.map((l, k) =>
        k === 4 ? l.replaceAll('"decision":"allow"', '"decision":"deny"') : l,
      ),
      [
        ...fx.lines.slice(0, 5),
        ...fx.lines.slice(6, 13),
        '{"kind":"end","records":11,"decisions":0}',
      ],
      // Leaf 2 exported twice (line 3 again at the end), counts adjusted.
      [
        ...fx.lines.slice(0, 13),
        fx.lines[3] as string,
        '{"kind":"end","records":13,"decisions":0}',
      ],
      // A line after the end line, and a file without its end line.
      [...fx.lines, fx.lines[2] as string],
      fx.lines.slice(0, -1),
      decisionFx.lines,
    ];
    const seen = new Set<string>();
    for (const [i, lines] of variants.entries()) {
      const { one, two } = await both(lines, i === variants.length - 1 ? decisionFx.key : fx.key);
      expect(two).toEqual(one);
      seen.add(one.ok ? 'ok' : (one.findings[0]?.problem ?? '?'));
    }
    // The variants really are different cases (each must be able to fail).
    expect([...seen].sort()).toEqual(['altered', 'forged', 'missing', 'ok', 'truncated']);
  });

  it('names a leaf exported twice by both of its lines', async () => {
    const lines = [
      ...fx.lines.slice(0, 13),
      fx.lines[3] as string,
      '{"kind":"end","records":13,"decisions":0}',
    ];
    const { two } = await both(lines, fx.key);
    expect(two.ok).toBe(false);
    expect(two.findings).toContainEqual(
      expect.objectContaining({ problem: 'forged', leafIndex: 2, recordId: '3' }),
    );
    const dup = two.findings.find((f) => f.detail.includes('exported twice'));
    expect(dup?.detail).toMatch(
      /^line 14: record 3 \(session s-2, sequence 0\): forged — leaf 2 is exported twice \(also on line 4\)/,
    );
  });

  it('finds a leaf exported twice when the leaves are not in log order', async () => {
    // Leaf 5 first, then 0–4 (below it), 6–11, then 3 and 5 again.
    const lines = [
      fx.lines[0] as string,
      fx.lines[6] as string,
      ...fx.lines.slice(1, 6),
      ...fx.lines.slice(7, 13),
      fx.lines[4] as string,
      fx.lines[6] as string,
      '{"kind":"end","records":14,"decisions":0}',
    ];
    const { one, two } = await both(lines, fx.key);
    expect(two).toEqual(one);
    const twice = one.findings.filter((f) => f.detail.includes('exported twice'));
    expect(twice.map((f) => f.detail.replace(/^line (\d+).*(leaf \d+ .*)$/, '$1: $2'))).toEqual([
      '14: leaf 3 is exported twice (also on line 6)',
      '15: leaf 5 is exported twice (also on line 2)',
    ]);
  });

  it('refuses a file that is not UTF-8 as unreadable input, from a worker too', async () => {
    // Line 2 holds 0xC3 0x28: a lead byte without its continuation.
    const path = file('');
    writeFileSync(
      path,
      Buffer.concat([Buffer.from(`${fx.lines[0]}\n`), Buffer.from([0xc3, 0x28, 10])]),
    );
    await expect(
      verifyExportFile(path, { jwks: jwksOf(fx.key), workers: 2, chunkBytes: 1024 }),
    ).rejects.toMatchObject({ code: 'input_unreadable' });
  });
});

describe('chunked reading', () => {
  it('reads every line once, in order, while reusing the chunk buffers', async () => {
    // Lines of varying length, some longer than a chunk (the buffer grows).
    const lines = Array.from({ length: 300 }, (_, i) => `${i}:${'x'.repeat((i * 37) % 3000)}`);
    const path = file(`${lines.join('\n')}\n`);
    const buffers = new ChunkBuffers();
    const seen: string[] = [];
    const memory = new Set<ArrayBuffer>();
    let chunks = 0;
    const total = await forEachChunk(
      path,
      (bytes, first) => {
        expect(first).toBe(seen.length + 1);
        memory.add(bytes.buffer as ArrayBuffer);
        const text = bytes.toString('latin1');
        seen.push(...text.slice(0, -1).split('\n'));
        // Scribble over the chunk: the next chunks must not see it.
        bytes.fill(0x3f);
        chunks++;
      },
      1024,
      buffers,
    );
    expect(total).toBe(lines.length);
    expect(seen).toEqual(lines);
    expect(chunks).toBeGreaterThan(20);
    // Reused: far fewer distinct buffers than chunks.
    expect(memory.size).toBeLessThan(chunks / 4);
  });
});
