import { describe, expect, it } from 'vitest';
import { parseAllowList } from '@/lib/server/net/address-class';
import { describeUrlRule } from '@/lib/server/net/ssrf';

// Issue 14: the URL hint says what this deployment's guard really allows.
describe('describeUrlRule', () => {
  it('says https only, loopback refused, by default', () => {
    expect(describeUrlRule({ allowHttpLoopback: false, allowList: parseAllowList('') })).toBe(
      'https only; private, loopback and metadata addresses are refused.',
    );
  });
  it('says plain http to loopback is allowed when WEBHOOKS_ALLOW_HTTP_LOOPBACK is on', () => {
    const rule = describeUrlRule({ allowHttpLoopback: true, allowList: parseAllowList('') });
    expect(rule).toContain('plain http to a loopback address');
    expect(rule).not.toContain('loopback and metadata addresses are refused');
  });
  it('names the allow list when there is one', () => {
    for (const list of ['hooks.internal', '10.0.0.0/8'])
      expect(
        describeUrlRule({ allowHttpLoopback: false, allowList: parseAllowList(list) }),
      ).toContain('unless listed in WEBHOOKS_ALLOW_HOSTS');
  });
});
