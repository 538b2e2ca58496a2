import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress, parseAllowList } from '@/lib/server/net/address-class';
import { postWebhook } from '@/lib/server/net/http-post';
import {
  assertWebhookUrl,
  type GuardOptions,
  type LookupFn,
  type ResolvedAddress,
} from '@/lib/server/net/ssrf';

const answers =
  (...seq: string[][]): LookupFn =>
  async () => {
    const next = seq.length > 1 ? (seq.shift() as string[]) : (seq[0] as string[]);
    return next.map((a): ResolvedAddress => ({ address: a, family: a.includes(':') ? 6 : 4 }));
  };

const guard = (over: Partial<GuardOptions> = {}): GuardOptions => ({
  allowHttpLoopback: false,
  allowList: parseAllowList(''),
  lookup: answers(['93.184.216.34']),
  ...over,
});

async function refusal(url: string, opts: GuardOptions): Promise<string> {
  const err = await assertWebhookUrl(url, opts).then(
    () => null,
    (e: { code: string }) => e,
  );
  return err ? err.code : 'allowed';
}

describe('SSRF guard: address classes', () => {
  it.each([
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12::1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.200.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.10.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.64.0.1', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::ffff:127.0.0.1', 'ipv4_mapped'],
    ['::ffff:10.0.0.1', 'ipv4_mapped'],
    ['64:ff9b::a00:1', 'reserved'],
    ['93.184.216.34', 'public'],
    ['172.32.0.1', 'public'],
    ['2606:4700::1111', 'public'],
  ])('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });
});

describe('SSRF guard: URLs', () => {
  it('allows https to a public address', async () => {
    expect(await refusal('https://hooks.example.com/cb', guard())).toBe('allowed');
  });

  it('refuses plain http without the development flag, even to loopback', async () => {
    expect(await refusal('http://127.0.0.1:9/cb', guard())).toBe('webhook_url_scheme');
  });

  it('with the flag, allows http to loopback only', async () => {
    const dev = guard({ allowHttpLoopback: true });
    expect(await refusal('http://127.0.0.1:9/cb', dev)).toBe('allowed');
    expect(await refusal('http://[::1]:9/cb', dev)).toBe('allowed');
    expect(await refusal('http://hooks.example.com/cb', dev)).toBe('webhook_url_scheme');
    expect(await refusal('http://10.0.0.1/cb', dev)).toBe('webhook_url_scheme');
  });

  it.each([
    'https://10.0.0.1/',
    'https://192.168.0.10/',
    'https://127.0.0.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[fd00:ec2::254]/',
    'https://[fe80::1]/',
    'https://100.64.1.1/',
    'https://0.0.0.0/',
    'https://[::ffff:7f00:1]/',
    'https://[::1]/',
  ])('refuses %s', async (url) => {
    expect(await refusal(url, guard())).toBe('webhook_url_blocked');
  });

  it('refuses a DNS name that resolves to a private address (any of its addresses)', async () => {
    expect(
      await refusal('https://internal.example.com/', guard({ lookup: answers(['10.0.0.7']) })),
    ).toBe('webhook_url_blocked');
    const mixed = guard({ lookup: answers(['93.184.216.34', '192.168.1.5']) });
    expect(await refusal('https://mixed.example.com/', mixed)).toBe('webhook_url_blocked');
  });

  it('allow-listed CIDRs and names pass', async () => {
    const opts = guard({
      allowList: parseAllowList('10.20.0.0/16, policy.internal'),
      lookup: answers(['10.9.9.9']),
    });
    expect(await refusal('https://10.20.3.4/', opts)).toBe('allowed');
    expect(await refusal('https://10.21.3.4/', opts)).toBe('webhook_url_blocked');
    expect(await refusal('https://policy.internal/', opts)).toBe('allowed');
  });

  it('refuses other schemes, credentials and garbage', async () => {
    expect(await refusal('ftp://example.com/', guard())).toBe('webhook_url_scheme');
    expect(await refusal('https://user:pw@example.com/', guard())).toBe('webhook_url_invalid');
    expect(await refusal('not a url', guard())).toBe('webhook_url_invalid');
    expect(
      await refusal(
        'https://nx.example/',
        guard({ lookup: async () => Promise.reject(new Error('ENOTFOUND')) }),
      ),
    ).toBe('webhook_dns_failed');
  });
});

describe('SSRF guard at connect time', () => {
  let server: Server;
  let port = 0;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      if (req.url === '/redirect') {
        res.writeHead(302, { location: '/landed' }).end();
        return;
      }
      if (req.url === '/big') {
        res.writeHead(200);
        res.end('x'.repeat(200_000));
        return;
      }
      if (req.url === '/slow') {
        setTimeout(() => res.writeHead(200).end('late'), 1_500);
        return;
      }
      res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('connects to the address its own lookup checked (a name served by the guard)', async () => {
    const opts = guard({ allowHttpLoopback: true, lookup: answers(['127.0.0.1']) });
    const res = await postWebhook({
      url: `http://hooks.test:${port}/`,
      body: '{}',
      headers: {},
      guard: opts,
    });
    expect(res).toMatchObject({ ok: true, status: 200 });
  });

  it('DNS rebinding: public at registration, private at connect → refused, nothing sent', async () => {
    // https so the loopback flag plays no part: the second answer is private.
    const lookup = answers(['93.184.216.34'], [`10.0.0.5`]);
    const opts = guard({ lookup });
    expect(await refusal('https://rebind.example.com/', opts)).toBe('allowed');
    const res = await postWebhook({
      url: 'https://rebind.example.com/',
      body: '{}',
      headers: {},
      guard: opts,
    });
    expect(res).toMatchObject({ ok: false, error: 'webhook_url_blocked' });
  });

  it('rebinding to loopback is refused too when loopback is not allowed', async () => {
    const before = hits;
    const opts = guard({ lookup: answers(['127.0.0.1']) });
    const res = await postWebhook({
      url: `https://rebind.example.com:${port}/`,
      body: '{}',
      headers: {},
      guard: opts,
    });
    expect(res).toMatchObject({ ok: false, error: 'webhook_url_blocked' });
    expect(hits).toBe(before);
  });

  it('an IP-literal URL (no lookup at connect) is checked before sending', async () => {
    const before = hits;
    const res = await postWebhook({
      url: `https://127.0.0.1:${port}/`,
      body: '{}',
      headers: {},
      guard: guard(),
    });
    expect(res).toMatchObject({ ok: false, error: 'webhook_url_blocked' });
    const meta = await postWebhook({
      url: 'https://169.254.169.254/',
      body: '{}',
      headers: {},
      guard: guard(),
    });
    expect(meta).toMatchObject({ ok: false, error: 'webhook_url_blocked' });
    expect(hits).toBe(before);
  });

  it('does not follow redirects', async () => {
    const before = hits;
    const opts = guard({ allowHttpLoopback: true });
    const res = await postWebhook({
      url: `http://127.0.0.1:${port}/redirect`,
      body: '{}',
      headers: {},
      guard: opts,
    });
    expect(res).toMatchObject({ ok: false, status: 302, error: 'redirect_refused' });
    expect(hits).toBe(before + 1);
  });

  it('caps the response it reads, and times out', async () => {
    const opts = guard({ allowHttpLoopback: true });
    const big = await postWebhook({
      url: `http://127.0.0.1:${port}/big`,
      body: '{}',
      headers: {},
      guard: opts,
    });
    expect(big.ok).toBe(true);
    expect(big.body?.length).toBe(64 * 1024);
    const whole = await postWebhook({
      url: `http://127.0.0.1:${port}/big`,
      body: '{}',
      headers: {},
      guard: opts,
      requireWholeBody: true,
    });
    expect(whole).toMatchObject({ ok: false, error: 'response_too_large' });
    const slow = await postWebhook({
      url: `http://127.0.0.1:${port}/slow`,
      body: '{}',
      headers: {},
      guard: opts,
      timeoutMs: 300,
    });
    expect(slow).toMatchObject({ ok: false, error: 'timeout' });
    expect(slow.latencyMs).toBeLessThan(1_000);
  });
});
