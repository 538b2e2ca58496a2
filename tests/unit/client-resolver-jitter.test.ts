import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '@checkpoint/agent-hooks';
import {
  HttpApprovalResolver,
  longPollWaitSeconds,
  POLL_JITTER,
  retryDelayMs,
} from '@/lib/client/http-approval-resolver';

/**
 * The resolver's jitter against a scripted fetch and random source. The
 * helpers it tests are internal to the package, so the import reaches past
 * `@checkpoint/client` to the module (client-http-resolver.test.ts runs the
 * resolver against the real routes).
 */

/** A random source that returns `values` in turn (then repeats the last). */
function sequence(...values: number[]) {
  const random = () => values[Math.min(random.calls++, values.length - 1)];
  random.calls = 0;
  return random;
}

const UNIFORM = Array.from({ length: 100 }, (_, i) => i / 100);

describe('longPollWaitSeconds (issue 17: parked polls must not re-poll in lock-step)', () => {
  it('draws pollSeconds ±20 % from the random source', () => {
    expect(POLL_JITTER).toBe(0.2);
    expect(longPollWaitSeconds(25, 600_000, () => 0)).toBe(20);
    expect(longPollWaitSeconds(25, 600_000, () => 0.5)).toBe(25);
    expect(longPollWaitSeconds(25, 600_000, () => 0.999)).toBe(30);
    const waits = UNIFORM.map((r) => longPollWaitSeconds(25, 600_000, () => r));
    expect(Math.min(...waits)).toBe(20);
    expect(Math.max(...waits)).toBe(30);
    // Every whole second of the band is used: the waits spread, not two values.
    expect(new Set(waits).size).toBe(11);
  });

  it('stays within the server cap of 30 s and at least 1 s', () => {
    for (const r of UNIFORM) {
      const at30 = longPollWaitSeconds(30, 600_000, () => r);
      expect(at30).toBeGreaterThanOrEqual(24);
      expect(at30).toBeLessThanOrEqual(30);
      expect(longPollWaitSeconds(1, 600_000, () => r)).toBe(1);
    }
  });

  it('never waits past the deadline', () => {
    for (const r of UNIFORM) {
      expect(longPollWaitSeconds(25, 7_900, () => r)).toBeLessThanOrEqual(7);
      expect(longPollWaitSeconds(25, 999, () => r)).toBe(0);
    }
    // Jitter below the time left is kept as drawn.
    expect(longPollWaitSeconds(25, 22_000, () => 0)).toBe(20);
    expect(longPollWaitSeconds(25, 22_000, () => 0.999)).toBe(22);
  });
});

describe('retryDelayMs (full jitter)', () => {
  it('is uniform in [0, min(250 ms · 2^(n−1), 5 s))', () => {
    expect(retryDelayMs(1, () => 0)).toBe(0);
    expect(retryDelayMs(1, () => 0.999)).toBe(249);
    expect(retryDelayMs(3, () => 0.5)).toBe(500);
    expect(retryDelayMs(20, () => 0.999)).toBe(4995);
    for (let attempt = 1; attempt <= 12; attempt++) {
      const cap = Math.min(250 * 2 ** (attempt - 1), 5_000);
      const delays = UNIFORM.map((r) => retryDelayMs(attempt, () => r));
      expect(Math.min(...delays)).toBe(0);
      expect(Math.max(...delays)).toBeLessThan(cap);
      expect(new Set(delays).size).toBeGreaterThan(50);
    }
  });
});

const request: ApprovalRequest = {
  context_identity: `sha256:${'a'.repeat(64)}`,
  interception_point: 'pre_tool_call',
  verdict: { decision: 'deny', reason: 'review', approval: {} },
  context: {} as ApprovalRequest['context'],
} as ApprovalRequest;

/** An app that creates the ticket, answers 202 (or `fail` statuses) `pending` times, then resolves. */
function fakeApp(pending: number, fail: number[] = []) {
  const waits: number[] = [];
  let gets = 0;
  const fetch = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    if (init?.method === 'POST') {
      return Response.json(
        {
          id: 't1',
          status: 'pending',
          expires_at: new Date().toISOString(),
          links: { self: '', wait: '', ui: 'http://app/approvals/t1' },
        },
        { status: 201 },
      );
    }
    gets++;
    waits.push(Number(url.searchParams.get('wait')));
    if (gets <= fail.length) return new Response('{}', { status: fail[gets - 1] });
    if (gets <= fail.length + pending) return Response.json({ status: 'pending' }, { status: 202 });
    return Response.json({ outcome: 'approve', context_identity: request.context_identity });
  }) as typeof globalThis.fetch;
  return { fetch, waits };
}

describe('HttpApprovalResolver re-polls', () => {
  it('asks for a freshly drawn wait on every long-poll', async () => {
    const app = fakeApp(4);
    const random = sequence(0, 0.25, 0.5, 0.75, 0.999);
    const resolve = HttpApprovalResolver({
      baseUrl: 'http://app',
      apiKey: 'ck_test',
      pollSeconds: 25,
      fetch: app.fetch,
      random,
    });
    const answer = await resolve(request, new AbortController().signal);
    expect(answer.outcome).toBe('approve');
    expect(app.waits).toEqual([20, 23, 25, 28, 30]);
  });

  it('keeps every wait inside the deadline', async () => {
    const app = fakeApp(3);
    const resolve = HttpApprovalResolver({
      baseUrl: 'http://app',
      apiKey: 'ck_test',
      timeoutMs: 12_000,
      pollSeconds: 25,
      fetch: app.fetch,
      random: () => 0.999,
    });
    await resolve(request, new AbortController().signal);
    for (const w of app.waits) expect(w).toBeLessThanOrEqual(12);
    expect(app.waits).toHaveLength(4);
  });

  it('draws the back-off after a failed long-poll from the random source', async () => {
    const app = fakeApp(0, [503, 503, 503]);
    // 0 for every draw: three immediate retries, each one a draw of its own.
    const random = sequence(0);
    const resolve = HttpApprovalResolver({
      baseUrl: 'http://app',
      apiKey: 'ck_test',
      fetch: app.fetch,
      random,
    });
    const answer = await resolve(request, new AbortController().signal);
    expect(answer.outcome).toBe('approve');
    // Four long-polls (one wait draw each) and three back-offs.
    expect(app.waits).toHaveLength(4);
    expect(random.calls).toBe(7);
  });
});
