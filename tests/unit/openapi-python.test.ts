import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '@/lib/server/openapi/document';
import { PYTHON_CLIENT_PATH, renderPythonClient } from '@/lib/server/openapi/python-client';
import pkg from '@/package.json' with { type: 'json' };

/**
 * docs/python/checkpoint_client.py is generated from the OpenAPI document
 * (`npx tsx --conditions=react-server scripts/openapi-python.ts`): the
 * committed file must be the generator's output, and it must load in the
 * system python3 with one method per documented operation.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const doc = buildOpenApiDocument({ version: pkg.version });
const generated = renderPythonClient(doc);

describe('the generated Python client', () => {
  it('is committed as generated (run scripts/openapi-python.ts after changing the API)', () => {
    expect(readFileSync(path.join(ROOT, PYTHON_CLIENT_PATH), 'utf8')).toBe(generated);
  });

  it('loads in python3 and has each operation, with its path and auth, and every error code', () => {
    const probe = `
import inspect, json, sys
sys.path.insert(0, ${JSON.stringify(path.join(ROOT, 'docs/python'))})
import checkpoint_client as c
ops = {n: inspect.getsource(f) for n, f in inspect.getmembers(c.CheckpointClient, inspect.isfunction) if not n.startswith("_")}
print(json.dumps({"ops": ops, "codes": {k: v[0] for k, v in c.ERROR_CODES.items()}}))
`;
    const out = JSON.parse(
      execFileSync('python3', ['-c', probe], {
        encoding: 'utf8',
        // No __pycache__ beside the committed file.
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
      }),
    ) as {
      ops: Record<string, string>;
      codes: Record<string, number>;
    };
    const expected: Record<string, { path: string; method: string; auth: boolean }> = {};
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const name = String(op.operationId)
          .replace(/([a-z])([A-Z])/g, '$1_$2')
          .toLowerCase();
        const auth = !(Array.isArray(op.security) && op.security.length === 0);
        expected[name] = { path: p, method: method.toUpperCase(), auth };
      }
    }
    expect(Object.keys(out.ops).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, e] of Object.entries(expected)) {
      const source = out.ops[name];
      expect(source, name).toContain(`self._call("${e.method}", `);
      expect(source, name).toContain(`auth=${e.auth ? 'True' : 'False'}`);
      // The path with its parameters quoted in: /api/v1/approvals/{urllib.parse.quote(id, …)}.
      const shape = source.match(/_call\("\w+", f?"([^"]+)"/)![1].replace(/\{[^}]+\}/g, '{}');
      expect(shape, name).toBe(e.path.replace(/\{[^}]+\}/g, '{}'));
    }
    const table = doc.components.schemas.Error['x-error-codes'] as {
      code: string;
      status: number;
    }[];
    expect(out.codes).toEqual(Object.fromEntries(table.map((e) => [e.code, e.status])));
  });
});
