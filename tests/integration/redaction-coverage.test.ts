import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildContext, redactPaths } from '@checkpoint/agent-hooks';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import {
  REDACTION_HELP,
  TARGET_BY_POINT,
  redactionPathWarnings,
  suggestedPath,
  unmatchedRedactionPaths,
} from '@/lib/server/hosts/redaction-coverage';
import {
  approvalRequest,
  type Body,
  hostWithKey,
  post,
  transferContext,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

// Issue 14, bug 1: a redaction path that can never match must not be skipped silently.

const base = {
  spec: 'agent-hooks/0.1',
  timestamp: '2026-12-02T10:00:00.000Z',
  sequence: 1,
  agent: { id: 'a', framework: 'test' },
  session: { id: 's' },
};

/** A typical context per interception point, with a secret where its examples point. */
const typical: Record<string, () => ReturnType<typeof buildContext>> = {
  pre_tool_call: () =>
    buildContext('pre_tool_call', base, {
      tool_call: {
        id: 'c1',
        name: 'login',
        args: { user: 'rita', password: 'hunter2', headers: { 'x-api-key': 'k' } },
      },
    }),
  post_tool_call: () =>
    buildContext('post_tool_call', base, {
      tool_call: { id: 'c1', name: 'oauth', args: {} },
      tool_result: { value: { access_token: 't' }, is_error: false },
    }),
  pre_model_call: () =>
    buildContext('pre_model_call', base, {
      model: { id: 'm' },
      messages: [{ role: 'user', content: 'secret' }],
    }),
};

describe('redaction path examples and suggestions', () => {
  it("the host form's examples match a tool call's arguments (the old $target.args.password did not)", () => {
    const ctx = typical.pre_tool_call?.() as ReturnType<typeof buildContext>;
    expect(REDACTION_HELP.examples.length).toBeGreaterThan(0);
    expect(unmatchedRedactionPaths(REDACTION_HELP.examples, ctx)).toEqual([]);
    expect(unmatchedRedactionPaths(['$target.args.password'], ctx)).toEqual([
      '$target.args.password',
    ]);
    // …and the redactor really hides what the examples name.
    const hidden = redactPaths(REDACTION_HELP.examples)(ctx);
    expect(JSON.stringify(hidden.target)).not.toContain('hunter2');
  });

  it('every point with examples has them match its typical context', () => {
    for (const [point, make] of Object.entries(typical)) {
      const examples = TARGET_BY_POINT[point]?.examples ?? [];
      expect(examples.length, point).toBeGreaterThan(0);
      expect(unmatchedRedactionPaths(examples, make()), point).toEqual([]);
    }
  });

  it('suggests the spelling relative to $target, or nothing when there is none', () => {
    expect(suggestedPath('$target.args.password', 'pre_tool_call')).toBe('$target.password');
    expect(suggestedPath('$target.tool_call.args["api-key"]', 'pre_tool_call')).toBe(
      '$target["api-key"]',
    );
    expect(suggestedPath('$target["args"].headers.auth', 'pre_tool_call')).toBe(
      '$target.headers.auth',
    );
    expect(suggestedPath('$target.tool_result.value.token', 'post_tool_call')).toBe(
      '$target.token',
    );
    expect(suggestedPath('$target.password', 'pre_tool_call')).toBeNull();
    expect(suggestedPath('$target.args', 'pre_tool_call')).toBeNull();
    expect(suggestedPath('not a path', 'pre_tool_call')).toBeNull();
  });

  it('a path reaching an index out of range, a member of an array or a missing member is unmatched', () => {
    const ctx = typical.pre_model_call?.() as ReturnType<typeof buildContext>;
    expect(
      unmatchedRedactionPaths(['$target[0].content', '$target[1].content', '$target.content'], ctx),
    ).toEqual(['$target[1].content', '$target.content']);
  });
});

describe('intake records unmatched paths; the host warns about paths that never match', () => {
  beforeAll(async () => {
    const { url, prefix } = testRedis();
    await configureTicketEvents({ redisUrl: url, channel: `${prefix}tickets` });
  });
  beforeEach(truncateAll);
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  it('a path that matches nothing is stored on the ticket, and the secret is named by the host warning', async () => {
    const host = await hostWithKey('payments', {
      redactionPaths: ['$target.args.iban', '$target.memo'],
    });
    const ctx = transferContext({ iban: 'DE89-SECRET', memo: 'm' });
    // An identity-less request: the server redacts what matches and stores it.
    const res = await post(host.key, approvalRequest(ctx, { identity: null }));
    expect(res.status).toBe(201);
    const prisma = await testDb();
    const t = await prisma.approvalTicket.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(t.redactionChecked).toEqual(['$target.args.iban', '$target.memo']);
    expect(t.redactionMisses).toEqual(['$target.args.iban']);
    // The miss is real: the IBAN went through in clear, the memo did not.
    expect((t.context as Body).target.iban).toBe('DE89-SECRET');
    expect((t.context as Body).target.memo).toBe('[redacted]');

    const warnings = await redactionPathWarnings(host.id, ['$target.args.iban', '$target.memo']);
    expect(warnings).toEqual([
      {
        path: '$target.args.iban',
        tickets: 1,
        missed: 1,
        points: [{ point: 'pre_tool_call', suggestion: '$target.iban' }],
      },
    ]);
  });

  it('a path that matched in any recent ticket, or that no ticket checked yet, is not warned about', async () => {
    const host = await hostWithKey('ops', { redactionPaths: ['$target.token'] });
    const prisma = await testDb();
    const missed = await post(host.key, approvalRequest(transferContext(), { identity: null }));
    const matched = await post(
      host.key,
      approvalRequest(transferContext({ token: 't' }), { identity: null }),
    );
    const misses = await Promise.all(
      [missed, matched].map((r) =>
        prisma.approvalTicket.findUniqueOrThrow({
          where: { id: r.body.id },
          select: { redactionMisses: true },
        }),
      ),
    );
    expect(misses.map((m) => m.redactionMisses)).toEqual([['$target.token'], []]);
    expect(await redactionPathWarnings(host.id, ['$target.token'])).toEqual([]);
    // A path added after the tickets were created is not judged by them.
    expect(await redactionPathWarnings(host.id, ['$target.token', '$target.new'])).toEqual([]);
  });

  it('a host that redacted locally (identity-bound) matches its own "[redacted]" values', async () => {
    const host = await hostWithKey('billing', { redactionPaths: ['$target.iban'] });
    const ctx = transferContext({ iban: 'DE89' });
    const res = await post(host.key, approvalRequest(ctx, { redact: ['$target.iban'] }));
    expect(res.status).toBe(201);
    const prisma = await testDb();
    const t = await prisma.approvalTicket.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(t.redactionMisses).toEqual([]);
  });
});
