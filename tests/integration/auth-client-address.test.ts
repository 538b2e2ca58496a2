import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { authenticateWithPassword, type SignInResult } from '@/lib/server/auth/credentials';
import { clientAddress, installPeerAddressHook } from '@/lib/server/http/client-address';
import { parseTrustedProxies } from '@/lib/server/http/trusted-proxies';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

/**
 * The address a sign-in is throttled under, through a real HTTP server: the
 * peer hook stamps the socket's address, clientAddress() decides what to
 * believe, authenticateWithPassword() throttles on it. (The production
 * server is covered by tests/e2e/sign-in-throttle.spec.ts.)
 */

const NONE = parseTrustedProxies('');
const LOCAL = parseTrustedProxies('127.0.0.1');

let server: http.Server;
let base: string;

beforeAll(async () => {
  installPeerAddressHook();
  server = http.createServer(async (req, res) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      for (const v of [value ?? []].flat()) headers.append(name, v);
    }
    const ip = clientAddress(headers, req.url === '/trusted' ? LOCAL : NONE);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const { email, password } = JSON.parse(Buffer.concat(chunks).toString());
    const result = await authenticateWithPassword({ email, password, ip });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ip, result }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await closeTestDb();
});

beforeEach(async () => {
  await truncateAll();
  // The throttle's clock is frozen: however long an attempt takes on a loaded
  // machine, its 1 s back-off cannot run out before the next one.
  vi.useFakeTimers({ toFake: ['Date'], now: new Date() });
});
afterEach(() => {
  vi.useRealTimers();
});

async function signIn(path: string, email: string, headers: Record<string, string>) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email, password: 'wrong-password' }),
  });
  return (await res.json()) as { ip: string | null; result: SignInResult };
}

describe('the client address sign-in throttling uses', () => {
  it('ignores forwarding headers from an untrusted peer: rotating them is still throttled', async () => {
    const outcomes: string[] = [];
    const ips = new Set<string | null>();
    for (let i = 0; i < 40; i++) {
      const { ip, result } = await signIn('/', `victim${i}@example.com`, {
        'x-forwarded-for': `198.51.100.${i}`,
        'x-real-ip': `203.0.113.${i}`,
        forwarded: `for=192.0.2.${i}`,
        // Our own header is overwritten from the socket, whatever a client sends.
        'x-checkpoint-peer': `192.0.2.${i}`,
      });
      ips.add(ip);
      outcomes.push(result.ok ? 'ok' : result.code);
    }
    expect([...ips]).toEqual(['127.0.0.1']);
    // 20 failures per client across accounts, then the back-off refuses every one.
    expect(outcomes).toEqual([
      ...Array(20).fill('invalid_credentials'),
      ...Array(20).fill('rate_limited'),
    ]);
    const prisma = await testDb();
    const clients = await prisma.signInAttempt.groupBy({ by: ['client'], _count: true });
    expect(clients).toEqual([{ client: '127.0.0.1', _count: 20 }]);
  });

  it('with TRUSTED_PROXIES=127.0.0.1, uses the address the proxy put in X-Forwarded-For', async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < 25; i++) {
      const { ip, result } = await signIn('/trusted', `victim${i}@example.com`, {
        // The left part is the client's own claim; the proxy appended the right-most.
        'x-forwarded-for': `6.6.6.6, 198.51.100.${i}`,
      });
      expect(ip).toBe(`198.51.100.${i}`);
      outcomes.push(result.ok ? 'ok' : result.code);
    }
    // 25 different clients, one failure each: nobody is throttled.
    expect(outcomes).toEqual(Array(25).fill('invalid_credentials'));
    const prisma = await testDb();
    const row = await prisma.signInAttempt.findFirstOrThrow({
      where: { email: 'victim7@example.com' },
    });
    expect(row).toMatchObject({ ip: '198.51.100.7', client: '198.51.100.7' });
  });

  it('with TRUSTED_PROXIES set, a direct request without forwarding headers keys on the peer', async () => {
    const { ip } = await signIn('/trusted', 'ana@example.com', {});
    expect(ip).toBe('127.0.0.1');
  });
});
