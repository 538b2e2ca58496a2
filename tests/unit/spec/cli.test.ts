import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { contextAt } from './examples';

const BIN = new URL('../../../bin/agent-hooks.mjs', import.meta.url).pathname;
const golden = JSON.parse(
  readFileSync(new URL('../../../conformance/golden/identity.json', import.meta.url), 'utf8'),
) as {
  cases: {
    name: string;
    context?: unknown;
    context_json?: string;
    canonical?: string;
    context_identity?: string;
  }[];
};
const goldenCase = (name: string) => golden.cases.find((c) => c.name === name)!;

const dir = mkdtempSync(join(tmpdir(), 'agent-hooks-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Runs the real bin as a user would, from a directory outside the project. */
function run(
  args: string[],
  stdin?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

describe('agent-hooks CLI', () => {
  it('identity prints the golden context_identity for a file', async () => {
    const c = goldenCase('output-utf16-key-order');
    const result = await run(['identity', file('ctx.json', JSON.stringify(c.context, null, 2))]);
    expect(result).toEqual({ code: 0, stdout: `${c.context_identity}\n`, stderr: '' });
  });

  it('identity --canonical reads stdin and prints the golden canonical JSON', async () => {
    const c = goldenCase('input-string-escapes');
    const result = await run(['identity', '--canonical', '-'], JSON.stringify(c.context));
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${c.canonical}\n`);
  });

  it('identity refuses an integer beyond 2^53 with a JSON error on stderr and exit 1', async () => {
    const c = goldenCase('reject-int-beyond-2^53-text');
    const result = await run(['identity'], c.context_json);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const error = JSON.parse(result.stderr) as { error: { code: string; message: string } };
    expect(error.error.code).toBe('host_error:context_invalid');
    expect(error.error.message).toContain('integer exceeds 2^53; string-encode 64-bit identifiers');
  });

  it('identity refuses a context that fails the §4 envelope, and unreadable input', async () => {
    const { tool_call: _, ...noToolCall } = contextAt('pre_tool_call');
    const invalid = await run(['identity'], JSON.stringify(noToolCall));
    expect(invalid.code).toBe(1);
    // The engine's own §4 check and message (bin/context-check.ts).
    expect(JSON.parse(invalid.stderr).error).toEqual({
      code: 'host_error:context_invalid',
      message: '§4: tool_call is not an object',
    });
    const missing = await run(['identity', join(dir, 'nope.json')]);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr).error.code).toBe('input_unreadable');
  });

  it('validate prints "valid" for each kind that is valid', async () => {
    const verdict = file('verdict.json', '{"decision":"deny","reason":"pii","approval":{}}');
    expect(await run(['validate', 'verdict', verdict])).toEqual({
      code: 0,
      stdout: 'valid\n',
      stderr: '',
    });
    const ctx = await run(
      ['validate', 'context', '-'],
      JSON.stringify(contextAt('post_tool_call')),
    );
    expect(ctx).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
  });

  it('validate lists schema errors and the §5.3 evidence cap, exit 1', async () => {
    const big = {
      decision: 'deny',
      reason: 'host_error:x',
      evidence: { artefact: 'é'.repeat(6000) },
    };
    const result = await run(['validate', 'verdict'], JSON.stringify(big));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('/reason must NOT start with "host_error:"');
    expect(result.stderr).toContain(
      '/evidence is 12015 bytes of RFC 8785 JSON, over the 10240-byte cap (§5.3)',
    );
    const record = await run(['validate', 'record'], '{"decision":"allow"}');
    expect(record.code).toBe(1);
    expect(record.stderr).toContain("must have required property 'interception_point'");
    const resolution = await run(
      ['validate', 'resolution'],
      '{"outcome":"approve","context_identity":null}',
    );
    expect(resolution.stderr).toContain("must have required property 'verdict'");
  });

  it('--help prints usage on stdout and exits 0', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    expect(help.stdout).toContain('identity');
    expect(help.stdout).toContain('validate');
  });

  it('no command and an unknown command print usage on stderr and exit 2', async () => {
    for (const args of [[], ['frobnicate'], ['validate', 'nonsense']]) {
      const result = await run(args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/agent-hooks (identity|validate|<command>)/);
    }
  });
});
