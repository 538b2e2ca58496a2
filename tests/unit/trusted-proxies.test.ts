import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '@/lib/server/config';
import {
  normalizeAddress,
  parseTrustedProxies,
  resolveClientAddress,
} from '@/lib/server/http/trusted-proxies';

const NONE = parseTrustedProxies('');
const LOCAL = parseTrustedProxies('127.0.0.1');
const CHAIN = parseTrustedProxies('127.0.0.1, 10.0.0.0/8, 2001:db8:aa::/48');

type Case = [
  name: string,
  peer: string | null,
  headers: Record<string, string>,
  trusted: ReturnType<typeof parseTrustedProxies>,
  expected: string | null,
];

const cases: Case[] = [
  [
    'no proxies trusted: the peer, header ignored',
    '203.0.113.9',
    { 'x-forwarded-for': '1.2.3.4' },
    NONE,
    '203.0.113.9',
  ],
  [
    'spoofed header from an untrusted peer',
    '198.51.100.7',
    { 'x-forwarded-for': '127.0.0.1, 10.0.0.1' },
    CHAIN,
    '198.51.100.7',
  ],
  [
    'spoofed X-Real-IP and Forwarded from an untrusted peer',
    '198.51.100.7',
    { 'x-real-ip': '1.1.1.1', forwarded: 'for=2.2.2.2' },
    CHAIN,
    '198.51.100.7',
  ],
  [
    'dual-stack peer (IPv4-mapped) is unwrapped before the trust check',
    '::ffff:127.0.0.1',
    { 'x-forwarded-for': '198.51.100.7' },
    LOCAL,
    '198.51.100.7',
  ],
  [
    'trusted proxy: the right-most entry it appended',
    '127.0.0.1',
    { 'x-forwarded-for': '6.6.6.6, 198.51.100.7' },
    LOCAL,
    '198.51.100.7',
  ],
  [
    'trusted chain: walks left through trusted hops only',
    '127.0.0.1',
    { 'x-forwarded-for': '6.6.6.6, 198.51.100.7, 10.1.2.3, 10.9.9.9' },
    CHAIN,
    '198.51.100.7',
  ],
  [
    'every hop trusted: the left-most',
    '127.0.0.1',
    { 'x-forwarded-for': '10.0.0.5, 10.0.0.6' },
    CHAIN,
    '10.0.0.5',
  ],
  [
    'Next filled X-Forwarded-For with the peer: nothing forwarded',
    '127.0.0.1',
    { 'x-forwarded-for': '127.0.0.1' },
    LOCAL,
    '127.0.0.1',
  ],
  [
    'X-Real-IP from a trusted proxy when no X-Forwarded-For',
    '127.0.0.1',
    { 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '198.51.100.7' },
    LOCAL,
    '198.51.100.7',
  ],
  [
    'Forwarded (RFC 7239) with quoted IPv6 and port',
    '127.0.0.1',
    { forwarded: 'for=192.0.2.60;proto=http, for="[2001:DB8:cafe::17]:4711"' },
    LOCAL,
    '2001:db8:cafe::17',
  ],
  [
    'IPv6 peer trusted by CIDR, IPv6 client canonicalized',
    '2001:db8:aa::1',
    { 'x-forwarded-for': '2001:0db8:0000:0000:0000:0000:0000:0042' },
    CHAIN,
    '2001:db8::42',
  ],
  [
    'IPv6 peer with a zone, untrusted',
    'fe80::1%eth0',
    { 'x-forwarded-for': '1.2.3.4' },
    CHAIN,
    'fe80::1',
  ],
  [
    'IPv4 hop with a port',
    '127.0.0.1',
    { 'x-forwarded-for': '198.51.100.7:51234' },
    LOCAL,
    '198.51.100.7',
  ],
  [
    'malformed hop stops at the last trusted address',
    '127.0.0.1',
    { 'x-forwarded-for': '6.6.6.6, not-an-ip, 10.0.0.7' },
    CHAIN,
    '10.0.0.7',
  ],
  [
    'malformed right-most hop: the trusted peer itself',
    '127.0.0.1',
    { 'x-forwarded-for': 'unknown' },
    LOCAL,
    '127.0.0.1',
  ],
  [
    'Forwarded obfuscated identifier is malformed',
    '127.0.0.1',
    { forwarded: 'for=_hidden' },
    LOCAL,
    '127.0.0.1',
  ],
  ['no peer: unknown', null, { 'x-forwarded-for': '1.2.3.4' }, LOCAL, null],
  ['malformed peer: unknown', 'garbage', { 'x-forwarded-for': '1.2.3.4' }, LOCAL, null],
];

describe('resolveClientAddress', () => {
  it.each(cases)('%s', (_name, peer, headers, trusted, expected) => {
    expect(resolveClientAddress({ peer, headers: new Headers(headers), trusted })).toBe(expected);
  });

  it('a client cannot choose its address by rotating X-Forwarded-For', () => {
    const seen = new Set<string | null>();
    for (let i = 0; i < 40; i++) {
      const headers = new Headers({ 'x-forwarded-for': `10.0.${i}.1`, 'x-real-ip': `10.1.${i}.1` });
      seen.add(resolveClientAddress({ peer: '::ffff:198.51.100.7', headers, trusted: NONE }));
      seen.add(resolveClientAddress({ peer: '198.51.100.7', headers, trusted: LOCAL }));
    }
    expect([...seen]).toEqual(['198.51.100.7']);
  });
});

describe('parseTrustedProxies', () => {
  it('accepts IPs and CIDRs of both families', () => {
    const t = parseTrustedProxies(' 127.0.0.1 ,10.0.0.0/8,::1, fd00::/8 ,');
    expect(t.size).toBe(4);
    expect(t.list.check('10.200.0.1', 'ipv4')).toBe(true);
    expect(t.list.check('fd12::1', 'ipv6')).toBe(true);
    expect(t.list.check('11.0.0.1', 'ipv4')).toBe(false);
  });

  it.each([
    ['localhost', /not an IP address/],
    ['10.0.0.0/33', /bad prefix/],
    ['::/129', /bad prefix/],
    ['10.0.0.0/x', /bad prefix/],
    ['10.0.0.0/8/8', /not an IP address/],
  ])('refuses %s', (raw, message) => {
    expect(() => parseTrustedProxies(raw)).toThrow(message);
  });
});

describe('normalizeAddress', () => {
  it.each([
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['[::1]:3000', '::1'],
    ['"[2001:db8::1]"', '2001:db8::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['1.2.3.4:80', '1.2.3.4'],
    ['', null],
    ['1.2.3', null],
    ['999.1.1.1', null],
    ['::ffff:zz', null],
  ])('%s -> %s', (raw, expected) => {
    expect(normalizeAddress(raw)).toBe(expected);
  });
});

describe('TRUSTED_PROXIES configuration', () => {
  it('defaults to none and accepts a list', () => {
    expect(parseConfig({}).TRUSTED_PROXIES).toBe('');
    expect(parseConfig({ TRUSTED_PROXIES: '127.0.0.1,::1' }).TRUSTED_PROXIES).toBe('127.0.0.1,::1');
  });

  it('stops the start naming the variable and the bad entry', () => {
    expect(() => parseConfig({ TRUSTED_PROXIES: '127.0.0.1, proxy.local' })).toThrow(ConfigError);
    expect(() => parseConfig({ TRUSTED_PROXIES: '127.0.0.1, proxy.local' })).toThrow(
      /TRUSTED_PROXIES: not an IP address or CIDR: proxy\.local/,
    );
  });
});
