import 'server-only';
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { config } from '@/lib/server/config';
import { moduleLogger } from '@/lib/server/logger';
import { parseTrustedProxies, resolveClientAddress, type TrustedProxies } from './trusted-proxies';

/**
 * Route handlers and server actions never see the socket, and Next only
 * fills X-Forwarded-For from it when the client sent none (it does not
 * append), so a client could name any address. The hook below stamps the
 * socket's address into a header of our own on every request, overwriting
 * whatever a client sent under that name, before Next reads the request.
 */
export const PEER_HEADER = 'x-checkpoint-peer';

const g = globalThis as typeof globalThis & {
  __checkpointPeerHook?: boolean;
  __checkpointPeerWarned?: boolean;
};

/**
 * Subscribes to Node's `http.server.request.start` channel, published for
 * every request before the server's `request` listeners (Next's) run.
 * Idempotent; called at boot, before the first request.
 */
export function installPeerAddressHook(): void {
  if (g.__checkpointPeerHook) return;
  subscribe('http.server.request.start', stampPeer);
  g.__checkpointPeerHook = true;
}

function stampPeer(message: unknown): void {
  const { request, socket } = message as { request: IncomingMessage; socket: Socket };
  request.headers[PEER_HEADER] = socket.remoteAddress ?? '';
}

let cached: { raw: string; trusted: TrustedProxies } | undefined;

function trustedProxies(): TrustedProxies {
  const raw = config().TRUSTED_PROXIES;
  if (cached?.raw !== raw) cached = { raw, trusted: parseTrustedProxies(raw) };
  return cached.trusted;
}

/**
 * The client address of the request with these headers (see
 * resolveClientAddress). Null when the peer is unknown: without the hook the
 * header could be a client's own, so it is not read at all.
 */
export function clientAddress(
  headers: Headers,
  trusted: TrustedProxies = trustedProxies(),
): string | null {
  if (!g.__checkpointPeerHook) {
    if (!g.__checkpointPeerWarned) {
      g.__checkpointPeerWarned = true;
      moduleLogger('http').warn('peer address hook not installed: client addresses are unknown');
    }
    return null;
  }
  return resolveClientAddress({ peer: headers.get(PEER_HEADER), headers, trusted });
}
