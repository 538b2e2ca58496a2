/**
 * One validator, one truth (§4, §10.2): the engine, the HTTP approval intake
 * and the CLI (`identity`, `validate context`) accept and refuse exactly the
 * same contexts, and where they accept, the CLI prints the identity the
 * engine records. Schema findings the engine does not act on are warnings.
 */
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { command as identityCommand } from '@/bin/commands/identity';
import { command as validateCommand } from '@/bin/commands/validate';
import { checkContext } from '@/bin/context-check';
import { createHost, HOST_ERRORS } from '@checkpoint/agent-hooks';
import { IntakeError } from '@/lib/server/approvals/errors';
import { validateApprovalRequest } from '@/lib/server/approvals/validate-request';
import { validateAgainst } from '@/spec/index';
import { contextCases, edit } from './agreement-corpus';
import { contextAt } from './examples';

const BIN = new URL('../../../bin/agent-hooks.mjs', import.meta.url).pathname;

type Run = { code: number; stdout: string; stderr: string };

async function inProcess(cmd: typeof identityCommand, args: string[], text: string): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, done) {
        append(String(chunk));
        done();
      },
    });
  const code = await cmd.run(args, {
    stdin: Readable.from([Buffer.from(text)]),
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
  } as never);
  return { code, stdout, stderr };
}

function spawned(args: string[], stdin: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

const host = createHost({
  agent: { id: 'a', framework: 'test' },
  interceptors: [() => ({ decision: 'allow' })],
});

/** The engine's answer: the identity it records, or null when it refused the context. */
async function engine(ctx: unknown): Promise<string | null> {
  const result = await host.evaluate(structuredClone(ctx));
  return result.record.verdict.reason === HOST_ERRORS.contextInvalid
    ? null
    : (result.record.input_identity as string);
}

/** The HTTP approval intake's answer on the same context (undefined: it does not judge this point). */
function intake(ctx: Record<string, unknown>): boolean | undefined {
  const point = ctx.interception_point;
  if (point === 'agent_shutdown') return undefined; // §6.1a: never sent for approval
  try {
    validateApprovalRequest({
      context_identity: null,
      interception_point: typeof point === 'string' ? point : 'input',
      verdict: { decision: 'deny', approval: {} },
      context: ctx,
    });
    return true;
  } catch (error) {
    if (!(error instanceof IntakeError)) throw error;
    if (error.code === 'point_invalid' && point !== 'on_error') return undefined;
    return false;
  }
}

const corpus = contextCases().filter(
  (c): c is [string, Record<string, unknown>] =>
    typeof c[1] === 'object' && c[1] !== null && !Array.isArray(c[1]),
);

describe('engine, HTTP intake and CLI agree on every context', () => {
  it('over the corpus', async () => {
    const disagreements: string[] = [];
    let accepted = 0;
    for (const [name, ctx] of corpus) {
      const text = JSON.stringify(ctx);
      const identity = await engine(ctx);
      const byIntake = intake(ctx);
      const cli = await inProcess(identityCommand, ['-'], text);
      const validate = await inProcess(validateCommand, ['context', '-'], text);
      const check = checkContext(JSON.parse(text));
      const said = {
        engine: identity !== null,
        intake: byIntake ?? identity !== null,
        identity: cli.code === 0,
        validate: validate.code === 0,
        check: check.ok,
      };
      if (new Set(Object.values(said)).size > 1)
        disagreements.push(`${name}: ${JSON.stringify(said)}`);
      if (identity !== null && cli.code === 0 && cli.stdout !== `${identity}\n`) {
        disagreements.push(`${name}: CLI identity differs from the engine's`);
      }
      if (identity !== null) accepted++;
    }
    expect(disagreements).toEqual([]);
    expect(accepted).toBeGreaterThan(20);
    expect(accepted).toBeLessThan(corpus.length);
  });

  it('the schema is advice: formats it flags become warnings, not refusals', () => {
    const ctx = edit(contextAt('pre_tool_call'), 'session.started_at', 'IGNORED');
    ctx.trace = { trace_id: 'not-hex' };
    expect(validateAgainst('context', ctx, { assertFormats: true }).ok).toBe(false);
    const check = checkContext(ctx);
    expect(check.ok).toBe(true);
    expect(check.ok && check.warnings).toEqual([
      '/session/started_at must match format "date-time"',
      '/trace/trace_id is not 32 lowercase hex digits (§4.5 W3C Trace Context)',
    ]);
  });

  it('the real binary prints the identity and warns on stderr', async () => {
    const ctx = edit(contextAt('input'), 'session.started_at', 'IGNORED');
    ctx.trace = { trace_id: 'xyz', span_id: 'abc' };
    const identity = await engine(ctx);
    expect(identity).toMatch(/^sha256:/);
    const printed = await spawned(['identity', '-'], JSON.stringify(ctx));
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(`${identity}\n`);
    expect(printed.stderr).toContain('warning: /session/started_at must match format "date-time"');
    expect(printed.stderr).toContain('warning: /trace/span_id is not 16 lowercase hex digits');
    const validated = await spawned(['validate', 'context', '-'], JSON.stringify(ctx));
    expect(validated.code).toBe(0);
    expect(validated.stdout).toBe('valid\n');
    expect(validated.stderr).toContain('warning: /trace/trace_id');
  });

  it('the real binary refuses what the engine refuses, with its reason', async () => {
    const ctx = edit(contextAt('pre_tool_call'), 'target', { other: 1 });
    expect(await engine(ctx)).toBeNull();
    const printed = await spawned(['identity', '-'], JSON.stringify(ctx));
    expect(printed.code).toBe(1);
    expect(printed.stderr).toContain(HOST_ERRORS.contextInvalid);
    expect(printed.stderr).toContain('§4.3');
  });
});
