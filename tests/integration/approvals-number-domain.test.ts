import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ctkJcsSha256 } from '@/conformance/jcs-identity';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { approvalRequest, hostWithKey, post, transferContext } from './approvals-fixtures';
import { closeTestDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/**
 * §10.2 at the HTTP funnel: the number domain is lexical. The body is sent as
 * text with the amount token swapped, so the token's spelling reaches the
 * server; the expected identity comes from the CTK's independent
 * canonicalize-based jcs-sha256, not from lib/hooks.
 */
describe('POST /api/v1/approvals: the number domain is judged on the token (§10.2)', () => {
  let key: string;

  beforeAll(async () => {
    const { url, prefix } = testRedis();
    await configureTicketEvents({ redisUrl: url, channel: `${prefix}tickets` });
  });
  beforeEach(async () => {
    await truncateAll();
    key = (await hostWithKey('billing', { defaultTimeoutMs: 600_000, maxTimeoutMs: 3_600_000 }))
      .key;
  });
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  function rawBody(token: string): { raw: string; identity: string } {
    const req = approvalRequest(transferContext(), { identity: 'sha256:placeholder' });
    const contextText = JSON.stringify(req.context).replaceAll(
      '"amount":25000',
      `"amount":${token}`,
    );
    const identity = ctkJcsSha256(JSON.parse(contextText));
    const raw = JSON.stringify({ ...req, context_identity: identity, context: 'CTX' }).replace(
      '"CTX"',
      contextText,
    );
    return { raw, identity };
  }

  it.each(['1e16', '9007199254740993.0', '1e+21', '2.5E20'])(
    'accepts the fraction/exponent token %s and binds the canonical identity',
    async (token) => {
      const { raw, identity } = rawBody(token);
      const res = await post(key, null, raw);
      expect(res.status).toBe(201);
      expect(res.body.context_identity).toBe(identity);
    },
  );

  it.each(['10000000000000000', '9007199254740992', '-9007199254740993'])(
    'refuses the integer token %s beyond ±(2^53−1) with the §4.4 remediation',
    async (token) => {
      const res = await post(key, null, rawBody(token).raw);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.error.code).toBe('value_domain');
      expect(res.body.error.message).toContain(
        'integer exceeds 2^53; string-encode 64-bit identifiers',
      );
    },
  );
});
