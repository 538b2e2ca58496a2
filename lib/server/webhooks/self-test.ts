import 'server-only';
import { randomBytes } from 'node:crypto';
import { type ApprovalRequest, validateResolution } from '@checkpoint/agent-hooks';
import { postWebhook } from '../net/http-post';
import type { GuardOptions } from '../net/ssrf';
import { signedHeaders } from './signing';

/**
 * The resolver self-test: the CTK's approval cases (AH-CTK-056 approve,
 * -057 reject, -058 unresolved, -073 null identity echoes null) sent as
 * synthetic requests flagged `webhook-test: true`, with the case named in
 * `webhook-test-case` so a resolver can answer as asked. Each answer must be
 * a valid §9 resolution that echoes the request's identity byte for byte; a
 * resolver that breaks the echo rule, or fails to answer any case with a
 * valid resolution, is never enabled. Answering another outcome than the
 * case asked is reported (`matched: false`) but does not fail it.
 */

export type SelfTestCaseName = 'approve' | 'reject' | 'unresolved' | 'identity_echo';

export interface SelfTestCase {
  name: SelfTestCaseName;
  ok: boolean;
  /** The answer's outcome, or why it failed (a stable code). */
  detail: string;
  /** Whether the outcome is the one the case asked for (advisory: the header is our convention). */
  matched?: boolean;
}

export interface SelfTestResult {
  ok: boolean;
  /** False when any answer failed the echo rule: the resolver must not be enabled. */
  echoOk: boolean;
  at: string;
  cases: SelfTestCase[];
}

function syntheticRequest(name: SelfTestCaseName): ApprovalRequest {
  // A fresh identity per run, with characters a sloppy echo would mangle:
  // only a byte-for-byte echo passes.
  const identity = name === 'identity_echo' ? null : `sha256:${randomBytes(32).toString('hex')}`;
  return {
    context_identity: identity,
    interception_point: 'pre_tool_call',
    verdict: {
      decision: 'deny',
      reason: 'review:needed',
      message: `Checkpoint self-test (${name}); not a real request.`,
      approval: {},
    },
    context: {
      spec: 'agent-hooks/0.1',
      interception_point: 'pre_tool_call',
      timestamp: new Date().toISOString(),
      sequence: 1,
      agent: { id: 'checkpoint-self-test', framework: 'checkpoint' },
      session: { id: `self-test-${randomBytes(4).toString('hex')}` },
      target: { name: 'lookup', args: { city: 'Paris' }, self_test_case: name },
    },
  };
}

const EXPECTED: Record<SelfTestCaseName, string | null> = {
  approve: 'approve',
  reject: 'reject',
  unresolved: 'unresolved',
  identity_echo: null,
};

export async function runSelfTest(
  url: string,
  opts: { secrets: string[]; timeoutMs: number; guard: GuardOptions },
): Promise<SelfTestResult> {
  const names: SelfTestCaseName[] = ['approve', 'reject', 'unresolved', 'identity_echo'];
  const cases: SelfTestCase[] = [];
  let echoOk = true;
  for (const name of names) {
    const req = syntheticRequest(name);
    const body = JSON.stringify(req);
    const id = `msg_selftest_${randomBytes(8).toString('hex')}`;
    const res = await postWebhook({
      url,
      body,
      headers: {
        ...signedHeaders(opts.secrets, id, body),
        'webhook-test': 'true',
        'webhook-test-case': name,
      },
      timeoutMs: opts.timeoutMs,
      guard: opts.guard,
      requireWholeBody: true,
    });
    if (!res.ok) {
      cases.push({ name, ok: false, detail: res.error ?? 'failed' });
      continue;
    }
    let answer: unknown;
    try {
      answer = JSON.parse(res.body ?? '');
    } catch {
      cases.push({ name, ok: false, detail: 'resolution_not_json' });
      continue;
    }
    const check = validateResolution(answer, req.context_identity);
    if (!check.ok) {
      if (check.reason === 'host_error:approval_identity_mismatch') echoOk = false;
      cases.push({ name, ok: false, detail: check.reason });
      continue;
    }
    const expected = EXPECTED[name];
    cases.push({
      name,
      ok: true,
      detail: check.outcome,
      matched: !expected || check.outcome === expected,
    });
  }
  return { ok: cases.every((c) => c.ok), echoOk, at: new Date().toISOString(), cases };
}
