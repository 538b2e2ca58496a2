import { describe, expect, it, vi } from 'vitest';
import {
  type InterceptionRecord,
  projectVerdictForRecord,
  truncateUtf8,
} from '@checkpoint/agent-hooks';
import { allow, ctxFor, escalate, hostWith, returns, sleep } from './test-helpers.ts';

const utf8 = (s: string) => new TextEncoder().encode(s).length;

describe('§10.3 payload-free verdict projection', () => {
  it('keeps decision, reason, labels, evidence and warning reasons; strips approval; drops transform.value', () => {
    const verdict = {
      decision: 'transform' as const,
      reason: 'r',
      message: 'short',
      warnings: [{ reason: 'w', message: 'wm' }],
      transform: { path: '$target.q', value: 'SECRET' },
      evidence: { artefact: 'a', verification_pointers: { k: 'https://e' } },
      result_labels: ['l'],
    };
    expect(projectVerdictForRecord(verdict)).toEqual({
      decision: 'transform',
      reason: 'r',
      message: 'short',
      warnings: [{ reason: 'w', message: 'wm' }],
      transform: { path: '$target.q' },
      evidence: { artefact: 'a', verification_pointers: { k: 'https://e' } },
      result_labels: ['l'],
    });
    expect(projectVerdictForRecord({ decision: 'deny', approval: { ticket: 'SECRET' } })).toEqual({
      decision: 'deny',
      approval: {},
    });
  });

  it('truncates message and warnings[].message to 256 UTF-8 bytes with a trailing …', () => {
    const long = 'a'.repeat(300);
    const p = projectVerdictForRecord({
      decision: 'allow',
      message: long,
      warnings: [{ message: long }],
    });
    expect(p.message).toBe(`${'a'.repeat(253)}…`);
    expect(utf8(p.message!)).toBe(256);
    expect(p.warnings![0].message).toBe(p.message);
  });

  it('truncates on a character boundary, never splitting a code point', () => {
    const emoji = '😀'.repeat(100); // 4 bytes each
    const t = truncateUtf8(emoji);
    expect(utf8(t)).toBeLessThanOrEqual(256);
    expect(t).toBe(`${'😀'.repeat(63)}…`);
    const mixed = `${'é'.repeat(126)}x${'é'.repeat(10)}`; // 2-byte chars around a 1-byte one
    const m = truncateUtf8(mixed);
    expect(utf8(m)).toBeLessThanOrEqual(256);
    expect(m.endsWith('…')).toBe(true);
    expect(Buffer.from(m, 'utf8').toString('utf8')).toBe(m);
  });

  it('leaves a message of exactly 256 bytes alone', () => {
    const exact = 'b'.repeat(256);
    expect(truncateUtf8(exact)).toBe(exact);
  });

  it('a record never carries the transform value or the approval contents', async () => {
    const host = hostWith([
      returns({ decision: 'transform', transform: { path: '$target.q', value: 'PAYLOAD' } }),
    ]);
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(result.verdict.transform).toEqual({ path: '$target.q', value: 'PAYLOAD' });
    expect(JSON.stringify(result.record)).not.toContain('PAYLOAD');
    expect(JSON.stringify(result.record)).not.toContain('secret');
  });
});

describe('§10.3 record fields and presence rules', () => {
  it('carries every required field', async () => {
    const result = await hostWith([{ name: 'policy-a', intercept: allow }]).evaluate(
      ctxFor('input'),
    );
    expect(result.record).toEqual({
      interception_point: 'input',
      mode: 'enforce',
      verdict: { decision: 'allow' },
      input_identity: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      enforced_identity: result.record.input_identity,
      identity_provider: 'jcs-sha256',
      session_id: 'session-1',
      sequence: 7,
      timestamp: '2026-06-19T14:03:11.123Z',
      decided_by: null,
      composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
      verdicts: [{ index: 0, decision: 'allow', name: 'policy-a' }],
      fold_truncated: false,
      interceptors_registered: 1,
    } satisfies InterceptionRecord);
  });

  it('trace is echoed when the context carries it, absent otherwise', async () => {
    const host = hostWith([allow]);
    const withTrace = await host.evaluate(
      ctxFor('input', { trace: { trace_id: 'ab', span_id: 'cd' } }),
    );
    expect(withTrace.record.trace).toEqual({ trace_id: 'ab', span_id: 'cd' });
    const partial = await host.evaluate(ctxFor('input', { trace: { span_id: 'cd' } }));
    expect(partial.record.trace).toEqual({ span_id: 'cd' });
    const without = await host.evaluate(ctxFor('input'));
    expect(without.record).not.toHaveProperty('trace');
  });

  it('timestamp is absent when the context lacked it (a rejected envelope)', async () => {
    const ctx = structuredClone(ctxFor('input')) as Record<string, unknown>;
    ctx.target = ctx.input;
    delete ctx.timestamp;
    const result = await hostWith([allow]).evaluate(ctx);
    expect(result.record).not.toHaveProperty('timestamp');
    expect(result.record.session_id).toBe('session-1');
    expect(result.record.input_identity).toBeNull();
  });

  it('composition knobs are present iff the profile consults them, with defaults filled in', async () => {
    const knobs = async (composition: unknown) =>
      (await hostWith([allow], { composition: composition as never }).evaluate(ctxFor('input')))
        .record.composition;
    expect(await knobs('sequential/first_deny')).toEqual({
      profile: 'sequential/first_deny',
      on_approval: 'stop',
    });
    expect(
      await knobs({
        profile: 'sequential/first_deny',
        on_approval: 'resume',
        on_disagreement: 'approval',
      }),
    ).toEqual({
      profile: 'sequential/first_deny',
      on_approval: 'resume',
    });
    expect(await knobs('sequential/run_all')).toEqual({ profile: 'sequential/run_all' });
    expect(await knobs('parallel/strictest')).toEqual({
      profile: 'parallel/strictest',
      on_transform_conflict: 'deny',
    });
    expect(await knobs('parallel/unanimous')).toEqual({
      profile: 'parallel/unanimous',
      on_disagreement: 'deny',
    });
  });

  it('verdicts are present in multi-verdict profiles even when nothing ran; fold_truncated only in sequential ones', async () => {
    const zero = await hostWith([], { composition: 'parallel/strictest' }).evaluate(
      ctxFor('input'),
    );
    expect(zero.record.verdicts).toEqual([]);
    expect(zero.record).not.toHaveProperty('fold_truncated');
    const runAll = await hostWith([], { composition: 'sequential/run_all' }).evaluate(
      ctxFor('input'),
    );
    expect(runAll.record.verdicts).toEqual([]);
    expect(runAll.record.fold_truncated).toBe(false);
  });

  it('resolved_by is absent when the seam was never consulted', async () => {
    const result = await hostWith([escalate()]).evaluate(ctxFor('input'));
    expect(result.record).not.toHaveProperty('resolved_by');
  });

  it.each([
    'sequential/first_deny',
    'sequential/run_all',
    'parallel/strictest',
    'parallel/unanimous',
  ] as const)(
    'an all-allow %s emission records the first allow whole (§5.3, §7.3)',
    async (profile) => {
      const first = {
        decision: 'allow',
        reason: 'policy:ok',
        message: 'fine',
        evidence: { artefact: 'a-1' },
      } as const;
      const result = await hostWith(
        [returns(first), returns({ decision: 'allow', reason: 'second' })],
        {
          composition: profile,
        },
      ).evaluate(ctxFor('input'));
      expect(result.record.verdict).toEqual(first);
      expect(result.record.decided_by).toBeNull();
    },
  );

  it('interceptors_registered counts what was registered at emission time', async () => {
    const host = hostWith([allow]);
    const remove = host.register({ name: 'late', intercept: allow });
    expect((await host.evaluate(ctxFor('input'))).record.interceptors_registered).toBe(2);
    remove();
    expect((await host.evaluate(ctxFor('input'))).record.interceptors_registered).toBe(1);
  });

  it('a rejected emission under a declared provider has null identities and a context_invalid verdict', async () => {
    const result = await hostWith([allow]).evaluate({
      interception_point: 'input',
      session: { id: 's' },
    });
    expect(result.record).toMatchObject({
      input_identity: null,
      enforced_identity: null,
      identity_provider: 'jcs-sha256',
      verdict: { decision: 'deny', reason: 'host_error:context_invalid' },
      session_id: 's',
    });
  });
});

describe('§10.3 record sinks', () => {
  it('hands every record to every sink, in emission order', async () => {
    const a: InterceptionRecord[] = [];
    const b: InterceptionRecord[] = [];
    const host = hostWith([allow], { sinks: [(r) => void a.push(r), async (r) => void b.push(r)] });
    const first = await host.evaluate(ctxFor('input'));
    const second = await host.evaluate(ctxFor('output'));
    await sleep(0);
    expect(a).toEqual([first.record, second.record]);
    expect(b).toEqual([first.record, second.record]);
  });

  it('a sink that throws or rejects never affects the emission, and is reported', async () => {
    const onSinkError = vi.fn();
    const host = hostWith([allow], {
      sinks: [
        () => {
          throw new Error('sync');
        },
        async () => {
          throw new Error('async');
        },
      ],
      onSinkError,
    });
    const result = await host.evaluate(ctxFor('input'));
    expect(result.proceed).toBe(true);
    await sleep(5);
    expect(onSinkError).toHaveBeenCalledTimes(2);
  });

  it('a slow sink does not block the emission', async () => {
    let done = false;
    const host = hostWith([allow], {
      sinks: [
        async () => {
          await sleep(200);
          done = true;
        },
      ],
    });
    const t0 = Date.now();
    await host.evaluate(ctxFor('input'));
    expect(Date.now() - t0).toBeLessThan(150);
    expect(done).toBe(false);
  });
});
