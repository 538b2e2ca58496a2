import 'server-only';
import { BlockList, isIP } from 'node:net';

/**
 * Which address a request came from, for sign-in throttling. Forwarding
 * headers are claims anyone can make; they are believed only as far as the
 * hops that wrote them are in TRUSTED_PROXIES. Pure: the caller hands in the
 * direct peer (the socket's address) and the configured list.
 */

export interface TrustedProxies {
  readonly list: BlockList;
  /** Entries parsed; 0 means forwarding headers are never believed. */
  readonly size: number;
}

/**
 * Parses TRUSTED_PROXIES: comma-separated IPs and CIDRs, IPv4 and IPv6.
 * Throws naming the first bad entry.
 */
export function parseTrustedProxies(raw: string): TrustedProxies {
  const list = new BlockList();
  let size = 0;
  for (const entry of raw.split(',').map((s) => s.trim())) {
    if (!entry) continue;
    const [addr, prefixRaw, ...rest] = entry.split('/');
    const ip = normalizeAddress(addr);
    if (!ip || rest.length > 0) throw new Error(`not an IP address or CIDR: ${entry}`);
    const type = isIP(ip) === 4 ? 'ipv4' : 'ipv6';
    const max = type === 'ipv4' ? 32 : 128;
    const prefix = prefixRaw === undefined ? max : Number(prefixRaw);
    if (!/^\d{1,3}$/.test(prefixRaw ?? String(max)) || prefix > max) {
      throw new Error(`bad prefix length in ${entry} (0-${max})`);
    }
    list.addSubnet(ip, prefix, type);
    size++;
  }
  return { list, size };
}

export function isTrusted(ip: string, trusted: TrustedProxies): boolean {
  if (trusted.size === 0) return false;
  return trusted.list.check(ip, isIP(ip) === 4 ? 'ipv4' : 'ipv6');
}

const MAPPED_V4 = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * One address in canonical form, or null when it is not one: strips quotes,
 * brackets, a port and an IPv6 zone; unwraps IPv4-mapped IPv6 (a dual-stack
 * socket reports `::ffff:127.0.0.1`); compresses and lower-cases IPv6.
 */
export function normalizeAddress(raw: string | null | undefined): string | null {
  let s = (raw ?? '').trim();
  if (s.startsWith('"') && s.endsWith('"') && s.length >= 2) s = s.slice(1, -1);
  if (!s || s.length > 100) return null;
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(s);
  if (bracketed) s = bracketed[1];
  else if (/^[\d.]+:\d{1,5}$/.test(s)) s = s.slice(0, s.lastIndexOf(':'));
  s = s.replace(/%[\w.-]+$/, '');
  const v = isIP(s);
  if (v === 4) return s;
  if (v !== 6) return null;
  const canonical = new URL(`http://[${s}]/`).hostname.slice(1, -1);
  const mapped = MAPPED_V4.exec(canonical);
  if (!mapped) return canonical;
  const hi = Number.parseInt(mapped[1], 16);
  const lo = Number.parseInt(mapped[2], 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** The hops a forwarding header lists, left (farthest) to right (nearest). */
function forwardedChain(headers: Headers, peer: string): string[] {
  const xff = splitList(headers.get('x-forwarded-for'));
  // Next sets X-Forwarded-For to the socket's address when no one sent one:
  // that carries no news, so the other headers get their turn.
  const xffIsOnlyPeer = xff.length === 1 && normalizeAddress(xff[0]) === peer;
  if (xff.length > 0 && !xffIsOnlyPeer) return xff;
  const forwarded = splitList(headers.get('forwarded'))
    .map((element) => {
      const pair = element
        .split(';')
        .map((p) => p.trim())
        .find((p) => p.toLowerCase().startsWith('for='));
      return pair ? pair.slice(4) : '';
    })
    .filter((v) => v !== '');
  if (forwarded.length > 0) return forwarded;
  const realIp = headers.get('x-real-ip')?.trim();
  return realIp ? [realIp] : [];
}

function splitList(value: string | null): string[] {
  if (!value) return [];
  // At most the nearest 32 hops: a longer chain is no one's real network.
  return value.split(',').slice(-32);
}

/**
 * The client's address: the direct peer, unless the peer is a trusted
 * proxy; then walk the forwarding chain from the right (the hop the trusted
 * proxy wrote) leftwards while the hops are trusted too. The first untrusted
 * hop is the client. A client can prepend whatever it likes, but never gets
 * past the address its own (untrusted) connection was recorded with. A
 * malformed hop stops the walk at the last good address to its right.
 */
export function resolveClientAddress(input: {
  peer: string | null | undefined;
  headers: Headers;
  trusted: TrustedProxies;
}): string | null {
  const peer = normalizeAddress(input.peer);
  if (!peer) return null;
  if (!isTrusted(peer, input.trusted)) return peer;
  const chain = forwardedChain(input.headers, peer);
  let client = peer;
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(chain[i]);
    if (!hop) return client;
    client = hop;
    if (!isTrusted(hop, input.trusted)) return hop;
  }
  return client;
}
