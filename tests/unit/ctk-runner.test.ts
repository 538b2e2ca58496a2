/**
 * §13.2: the CTK runner. It must refuse an empty set, be able to fail (a
 * sabotaged host fails the vectors that pin what it broke), print exactly the
 * documented JSON, and run a directory of vectors nobody here wrote.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ctk } from '@/bin/commands/ctk';
import type { Harness } from '@/conformance/harness';
import { runGolden } from '@/conformance/golden-runner';
import { CONFORMANCE_DIR, CtkError, DEFAULT_VECTORS_DIR, loadVectorDir } from '@/conformance/load';
import { createReferenceHarness, referenceHarness } from '@/conformance/reference-harness';
import { runVectorDir, runVectors } from '@/conformance/runner';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ctk-test-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { out: (s: string) => void out.push(s), err: (s: string) => void err.push(s) },
    out,
    err,
  };
}

function vectorFile(name: string): string {
  const file = readdirSync(DEFAULT_VECTORS_DIR).find((f) => f.startsWith(name));
  if (!file) throw new Error(`no vector ${name}`);
  return path.join(DEFAULT_VECTORS_DIR, file);
}

/** A host that wires everything like the reference one but breaks one thing. */
type Setup = Parameters<Harness['run']>[0];
function sabotaged(change: Partial<Harness> & { patch?: (s: Setup) => Setup }): Harness {
  return {
    declaration: change.declaration ?? referenceHarness.declaration,
    run:
      change.run ?? ((setup) => referenceHarness.run(change.patch ? change.patch(setup) : setup)),
  };
}

describe('ctk runner (§13.2)', () => {
  it('refuses an empty vector directory with a stable code, in the runner and the CLI', async () => {
    const empty = tempDir();
    writeFileSync(path.join(empty, 'README.md'), 'not a vector');
    expect(() => loadVectorDir(empty)).toThrow(CtkError);
    await expect(runVectors([], referenceHarness)).rejects.toMatchObject({
      code: 'ctk_empty_vector_set',
    });
    const { io, err } = capture();
    expect(await ctk(['--vectors', empty], io)).toBe(2);
    expect(err.join('')).toContain('ctk_empty_vector_set');
  });

  it('refuses a missing directory and unknown arguments', async () => {
    const a = capture();
    expect(await ctk(['--vectors', path.join(tempDir(), 'nope')], a.io)).toBe(2);
    expect(a.err.join('')).toContain('ctk_vectors_dir_missing');
    const b = capture();
    expect(await ctk(['--bogus'], b.io)).toBe(2);
    expect(b.err.join('')).toContain('ctk_usage');
  });

  it('passes every project vector on the reference harness', async () => {
    const run = await runVectorDir(DEFAULT_VECTORS_DIR, referenceHarness);
    expect(run.results.filter((r) => r.status === 'fail')).toEqual([]);
    // The only skips are vectors needing 64-bit JSON integers, which a JavaScript host cannot declare.
    const skipped = run.results.filter((r) => r.status === 'skip');
    expect(skipped.map((r) => r.detail)).toEqual(
      skipped.map(() => 'harness does not declare: int64_json'),
    );
    expect(run.summary.pass).toBeGreaterThanOrEqual(170);
  });

  it('fails the vectors a host that ignores its interceptors breaks (allow-all)', async () => {
    // Interceptors are still called (the first one records) but their verdicts are thrown away.
    const ignore = (f: (c: unknown) => unknown) => (c: unknown) => {
      try {
        f(c);
      } catch {}
      return { decision: 'allow' };
    };
    const host = sabotaged({ patch: (s) => ({ ...s, interceptors: s.interceptors.map(ignore) }) });
    const dir = tempDir();
    for (const v of ['AH-CTK-008', 'AH-CTK-011', 'AH-CTK-001'])
      copyFileSync(vectorFile(v), path.join(dir, path.basename(vectorFile(v))));
    const run = await runVectorDir(dir, host);
    const byId = Object.fromEntries(run.results.map((r) => [r.id.slice(0, 10), r]));
    expect(byId['AH-CTK-008'].status).toBe('fail');
    expect(byId['AH-CTK-008'].failures).toContain('run_outcome: expected blocked, got completed');
    expect(byId['AH-CTK-011'].status).toBe('fail');
    // A vector with nothing to deny still passes: the failures are specific, not blanket.
    expect(byId['AH-CTK-001'].status).toBe('pass');
    const { io } = capture();
    expect(await ctk(['--vectors', dir], io, host)).toBe(1);
  });

  it('fails approval vectors on a host that never registers its resolver (§9)', async () => {
    const host = sabotaged({ patch: (s) => ({ ...s, resolver: null }) });
    const dir = tempDir();
    copyFileSync(vectorFile('AH-CTK-056'), path.join(dir, path.basename(vectorFile('AH-CTK-056'))));
    const [result] = (await runVectorDir(dir, host)).results;
    expect(result.status).toBe('fail');
    expect(result.failures.join('\n')).toMatch(/resolved_by/);
  });

  it('fails a host whose declared posture its loop does not honour (§6.2)', async () => {
    const host = sabotaged({
      declaration: {
        ...referenceHarness.declaration,
        postures: { tool_seam_host_error: 'terminate' },
      },
    });
    const dir = tempDir();
    copyFileSync(vectorFile('AH-CTK-046'), path.join(dir, path.basename(vectorFile('AH-CTK-046'))));
    const [result] = (await runVectorDir(dir, host)).results;
    expect(result.failures).toContain('run_outcome: expected blocked, got completed');
  });

  it('passes every project vector with the terminate posture too: posture vectors are single-valued per surface (§6.2)', async () => {
    const run = await runVectorDir(DEFAULT_VECTORS_DIR, createReferenceHarness('terminate'));
    expect(run.results.filter((r) => r.status === 'fail')).toEqual([]);
    expect(run.summary.skip).toBe(1);
  });

  it('fails, never crashes, on a harness that throws or hangs', async () => {
    const dir = tempDir();
    copyFileSync(vectorFile('AH-CTK-001'), path.join(dir, path.basename(vectorFile('AH-CTK-001'))));
    const throwing = sabotaged({
      run: async () => {
        throw new TypeError('adapter exploded');
      },
    });
    const [t] = (await runVectorDir(dir, throwing)).results;
    expect(t.failures).toEqual(['harness error: TypeError: adapter exploded']);
    const hanging = sabotaged({ run: () => new Promise(() => {}) });
    const [h] = (await runVectorDir(dir, hanging, { timeoutMs: 50 })).results;
    expect(h.status).toBe('fail');
    expect(h.failures[0]).toContain('did not finish within 50 ms');
  });

  it('prints exactly {summary, results} on stdout with --json', async () => {
    const dir = tempDir();
    for (const v of ['AH-CTK-001', 'AH-CTK-008'])
      copyFileSync(vectorFile(v), path.join(dir, path.basename(vectorFile(v))));
    const { io, out } = capture();
    expect(await ctk(['--json', '--vectors', dir], io)).toBe(0);
    expect(out).toHaveLength(1);
    const doc = JSON.parse(out[0]);
    expect(Object.keys(doc)).toEqual(['summary', 'results']);
    expect(doc.summary).toEqual({ pass: 2, fail: 0, skip: 0 });
    for (const r of doc.results) {
      expect(Object.keys(r)).toEqual(['id', 'title', 'part', 'status', 'failures', 'detail']);
      expect(r.status).toBe('pass');
    }
    expect(doc.results.map((r: { id: string }) => r.id)).toEqual(['AH-CTK-001', 'AH-CTK-008']);
  });

  it('runs a foreign directory in the public naming (file AH-CTK-NNN-slug.json, id AH-CTK-NNN): skips undeclared capabilities, fails schema-invalid files', async () => {
    const dir = tempDir();
    const base = JSON.parse(readFileSync(vectorFile('AH-CTK-008'), 'utf8'));
    const write = (file: string, v: Record<string, unknown>) =>
      writeFileSync(path.join(dir, file), JSON.stringify(v));
    write('AH-CTK-501-foreign-deny-at-input.json', { ...base, id: 'AH-CTK-501', part: 'foreign' });
    write('AH-CTK-502-foreign-int64.json', {
      ...base,
      id: 'AH-CTK-502',
      capabilities: ['model_calls', 'int64_json'],
      part: 'foreign',
    });
    write('AH-CTK-503-foreign-bad.json', {
      ...base,
      id: 'AH-CTK-503',
      expect: { run_outcome: 'blocked' },
    });
    writeFileSync(path.join(dir, 'AH-CTK-504-not-json.json'), '{');
    // Not named AH-CTK-*: runs when it is a vector, is ignored (not failed) when it is not.
    write('extra-vector.json', { ...base, id: 'AH-CTK-505', part: 'foreign' });
    write('manifest.json', { vectors: 4 });
    const json = path.join(tempDir(), 'out', 'ctk.json');
    const report = path.join(tempDir(), 'report.md');
    const { io, out, err } = capture();
    expect(await ctk(['--vectors', dir, '--json-file', json, '--report', report], io)).toBe(1);
    const doc = JSON.parse(readFileSync(json, 'utf8'));
    expect(doc.summary).toEqual({ pass: 2, fail: 2, skip: 1 });
    const byId = Object.fromEntries(doc.results.map((r: { id: string }) => [r.id, r]));
    expect(byId['AH-CTK-501'].status).toBe('pass');
    expect(byId['AH-CTK-505'].status).toBe('pass');
    expect(byId['AH-CTK-502']).toMatchObject({
      status: 'skip',
      detail: 'harness does not declare: int64_json',
    });
    expect(byId['AH-CTK-503'].failures[0]).toMatch(
      /does not validate against vectors\.schema\.json/,
    );
    expect(byId['AH-CTK-504-not-json'].failures[0]).toMatch(/not JSON/);
    expect(err.join('')).toContain('ignored manifest.json');
    // Human lines still go to stdout with --json-file.
    expect(out.join('')).toContain('PASS AH-CTK-501');
    const md = readFileSync(report, 'utf8');
    expect(md).toContain('## foreign');
    expect(md).toContain('harness does not declare: int64_json');
  });

  it('loads a vector whatever its file is called, and fails two files that claim one id', () => {
    const dir = tempDir();
    const base = JSON.parse(readFileSync(vectorFile('AH-CTK-001'), 'utf8'));
    writeFileSync(path.join(dir, 'AH-CTK-001-basic-loop.json'), JSON.stringify(base));
    writeFileSync(path.join(dir, 'AH-CTK-001-copy.json'), JSON.stringify(base));
    writeFileSync(
      path.join(dir, 'AH-CTK-777-long-id.json'),
      JSON.stringify({ ...base, id: 'AH-CTK-777-long-id' }),
    );
    const files = loadVectorDir(dir);
    expect(files.map((f) => (f.ok ? f.vector.id : f.id))).toEqual([
      'AH-CTK-001',
      'AH-CTK-001',
      'AH-CTK-777-long-id',
    ]);
    expect(files[0]).toMatchObject({
      ok: false,
      problems: ['id AH-CTK-001 is also used by AH-CTK-001-copy.json'],
    });
    expect(files[2].ok).toBe(true);
  });

  it('the project vectors use the public naming: AH-CTK-NNN-slug.json carrying id AH-CTK-NNN', () => {
    for (const f of loadVectorDir(DEFAULT_VECTORS_DIR)) {
      expect(f.ok).toBe(true);
      if (!f.ok) continue;
      expect(f.vector.id).toMatch(/^AH-CTK-\d{3}$/);
      expect(f.file).toMatch(new RegExp(`^${f.vector.id}-[a-z0-9-]+\\.json$`));
    }
  });

  it('runs the golden identities with the project vectors, and fails a host whose provider is wrong (§10.2, §13.2)', async () => {
    const golden = path.join(CONFORMANCE_DIR, 'golden', 'identity.json');
    const good = runGolden(golden, referenceHarness);
    expect(good.length).toBeGreaterThanOrEqual(18);
    expect(good.filter((r) => r.status !== 'pass')).toEqual([]);
    const sloppy = sabotaged({});
    // A provider that hashes the whole context, optional fields included, instead of the projection.
    sloppy.identity = { compute: (c) => `sha256:${JSON.stringify(c).length}` };
    const bad = runGolden(golden, sloppy);
    expect(
      bad.some((r) => r.status === 'fail' && r.failures[0].startsWith('context_identity expected')),
    ).toBe(true);
    expect(bad.find((r) => r.id === 'golden/reject-int-beyond-2^53-text')?.status).toBe('skip');
    const unbound = sabotaged({
      declaration: { ...referenceHarness.declaration, identity_provider: null },
    });
    expect(runGolden(golden, unbound).every((r) => r.status === 'skip')).toBe(true);
  });

  it('through the real bin, --json stdout is one JSON document and the exit status says fail', () => {
    const dir = tempDir();
    const base = JSON.parse(readFileSync(vectorFile('AH-CTK-001'), 'utf8'));
    writeFileSync(
      path.join(dir, 'AH-CTK-601-a.json'),
      JSON.stringify({ ...base, id: 'AH-CTK-601-a' }),
    );
    // A vector expecting the wrong outcome must fail, and the exit status must say so.
    const wrong = {
      ...base,
      id: 'AH-CTK-602-b',
      expect: { ...base.expect, run_outcome: 'blocked' },
    };
    writeFileSync(path.join(dir, 'AH-CTK-602-b.json'), JSON.stringify(wrong));
    const root = path.resolve(CONFORMANCE_DIR, '..');
    const res = spawnSync(
      'node',
      [path.join(root, 'bin', 'agent-hooks.mjs'), 'ctk', '--json', '--vectors', dir],
      {
        cwd: tmpdir(),
        encoding: 'utf8',
      },
    );
    expect(res.status).toBe(1);
    const doc = JSON.parse(res.stdout);
    expect(doc.summary).toEqual({ pass: 1, fail: 1, skip: 0 });
    expect(doc.results[1].failures).toContain('run_outcome: expected blocked, got completed');
  });
});

describe('ctk --golden FILE: the public fixtures format as well as the project’s (§10.2, §13.2)', () => {
  const ROOT = path.resolve(CONFORMANCE_DIR, '..');
  const head =
    '"spec":"agent-hooks/0.1","interception_point":"pre_tool_call","timestamp":"2026-06-19T14:03:11.123Z",' +
    '"sequence":40,"agent":{"id":"agent-1","framework":"langchain"},"session":{"id":"sess-1"}';
  // Written as text: the number tokens' lexical forms (1.0, 9007199254740993.0) must reach the
  // host's JSON-text funnel, which JSON.parse of the whole file would erase. Expected identities
  // are the ones derived by hand for conformance/golden/identity.json.
  const publicFixtures = `{"fixtures": [
    {"id": "pub-lexical-forms", "note": "1, 1.0, -0.0, 1e+21, 1e-07", "ctx": %A%,
     "expect": {"context_identity": "sha256:2c2dd97cb6f879e8772e6d518a5f5861c670ec422c7d23c9b4939eb53521d984"}},
    {"id": "pub-float-token-beyond-2^53", "note": "fraction/exponent tokens are in the domain", "ctx": %D%,
     "expect": {"context_identity": "sha256:733a14f5149dc9d228971fbddad2699c3f855fe3626a0953669c786f01f24562"}},
    {"id": "pub-integer-token-beyond-2^53", "note": "refused on the token",
     "ctx": {${head},"tool_call":{"id":"c","name":"n","args":{"id":9007199254740993}},"target":{"id":9007199254740993}},
     "expect": {"error": "host_error:context_invalid"}},
    {"id": "pub-missing-conditional", "ctx": {${head},"target":{}}, "expect": {"error": "context_invalid"}}
  ]}`
    .replace(
      '%A%',
      '{"spec":"agent-hooks/0.1","interception_point":"pre_tool_call","timestamp":"2026-06-19T14:03:11.123Z","sequence":30,"agent":{"id":"agent-1","framework":"langchain"},"session":{"id":"sess-1"},"tool_call":{"id":"call_30","name":"calc","args":{"int":1,"one_point_zero":1.0,"neg_zero":-0.0,"e21":1e+21,"tiny":1e-07,"pi":3.141592653589793}},"target":{"int":1,"one_point_zero":1.0,"neg_zero":-0.0,"e21":1e+21,"tiny":1e-07,"pi":3.141592653589793}}',
    )
    .replace(
      '%D%',
      '{"spec":"agent-hooks/0.1","interception_point":"pre_tool_call","timestamp":"2026-06-19T14:03:11.123Z","sequence":33,"agent":{"id":"agent-1","framework":"langchain"},"session":{"id":"sess-1"},"tool_call":{"id":"call_33","name":"calc","args":{"exp":1e16,"neg_exp":-2.5E17,"frac":9007199254740993.0}},"target":{"exp":1e16,"neg_exp":-2.5E17,"frac":9007199254740993.0}}',
    );

  function fixtureFile(text: string): string {
    const file = path.join(tempDir(), 'fixtures.json');
    writeFileSync(file, text);
    return file;
  }

  function oneVectorDir(): string {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'AH-CTK-001-basic.json'), readFileSync(vectorFile('AH-CTK-001')));
    return dir;
  }

  it('runs a public-format fixture file through the real bin: every fixture passes', () => {
    const res = spawnSync(
      'node',
      [
        path.join(ROOT, 'bin', 'agent-hooks.mjs'),
        'ctk',
        '--json',
        '--vectors',
        oneVectorDir(),
        '--golden',
        fixtureFile(publicFixtures),
      ],
      { cwd: tmpdir(), encoding: 'utf8' },
    );
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    const doc = JSON.parse(res.stdout) as { results: { id: string; status: string }[] };
    expect(doc.results.filter((r) => r.id.startsWith('golden/'))).toEqual([
      expect.objectContaining({ id: 'golden/pub-lexical-forms', status: 'pass' }),
      expect.objectContaining({ id: 'golden/pub-float-token-beyond-2^53', status: 'pass' }),
      expect.objectContaining({ id: 'golden/pub-integer-token-beyond-2^53', status: 'pass' }),
      expect.objectContaining({ id: 'golden/pub-missing-conditional', status: 'pass' }),
    ]);
  });

  it('fails a public fixture whose identity or refusal the host does not produce', () => {
    const wrong = publicFixtures
      .replace('2c2dd97cb6f879e8772e6d518a5f5861c670ec422c7d23c9b4939eb53521d984', '0'.repeat(64))
      .replace('"error": "context_invalid"', '"error": "host_error:transform_invalid"');
    const results = runGolden(fixtureFile(wrong), referenceHarness);
    expect(results.map((r) => r.status)).toEqual(['fail', 'pass', 'pass', 'fail']);
    expect(results[0].failures[0]).toMatch(
      /^context_identity expected sha256:0{64}, got sha256:2c2d/,
    );
    expect(results[3].failures[0]).toContain('expected host_error:transform_invalid');
  });

  it('refuses a file in neither format, or a malformed fixture, with a stable code and exit 2', async () => {
    const bad: [string, RegExp][] = [
      ['{"vectors": []}', /neither the public fixtures format .* nor the project/],
      ['[1, 2]', /neither the public fixtures format/],
      ['not json', /not JSON/],
      ['{"fixtures": []}', /no fixtures/],
      ['{"fixtures": [{"id": "x", "ctx": {}}]}', /fixtures\[0\] \(x\): expect must be/],
      [
        '{"fixtures": [{"id": "x", "ctx": {}, "expect": {"context_identity": "sha256:00"}}]}',
        /fixtures\[0\] \(x\): expect.context_identity must be sha256:/,
      ],
      ['{"fixtures": [{"ctx": {}, "expect": {"error": "e"}}]}', /fixtures\[0\]: id must be/],
      [
        '{"fixtures": [{"id": "x", "expect": {"error": "e"}}, {"id": "x", "ctx": 1, "expect": {"error": "e"}}]}',
        /fixtures\[0\] \(x\): ctx is missing/,
      ],
      [
        '{"cases": [{"name": "n", "covers": "c", "context": {}}]}',
        /cases\[0\] \(n\): needs context_identity or expect_error/,
      ],
    ];
    for (const [text, message] of bad) {
      const { io, err } = capture();
      expect(await ctk(['--vectors', oneVectorDir(), '--golden', fixtureFile(text)], io)).toBe(2);
      const error = JSON.parse(err.join('').trim().split('\n').pop() as string).error;
      expect(error.code).toBe('ctk_usage');
      expect(error.message).toMatch(message);
    }
    const { io, err } = capture();
    const missing = path.join(tempDir(), 'absent.json');
    expect(await ctk(['--vectors', oneVectorDir(), '--golden', missing], io)).toBe(2);
    expect(err.join('')).toContain('no golden fixtures file at');
  });
});
