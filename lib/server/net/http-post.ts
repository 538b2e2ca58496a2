import 'server-only';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { observeOutbound } from '../metrics/outbound';
import type { WebhookError } from '../webhooks/errors';
import { type GuardOptions, guardedLookup, parseWebhookUrl, resolveChecked } from './ssrf';

/** Bytes of a receiver's answer we read; the rest is dropped with the socket. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
export const DEFAULT_TIMEOUT_MS = 5_000;

export interface PostResult {
  ok: boolean;
  status?: number;
  latencyMs: number;
  /** Stable code of the failure: http_<status>, redirect_refused, timeout, response_too_large, webhook_url_blocked, … */
  error?: string;
  /** The answer, up to MAX_RESPONSE_BYTES (the resolver reads it). */
  body?: string;
}

export interface PostInput {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs?: number;
  guard: GuardOptions;
  /** Refuse (rather than truncate) an answer over the cap: a resolver's answer must be whole. */
  requireWholeBody?: boolean;
}

/**
 * One guarded POST (webhook deliveries, the resolver, the self-test), never
 * throwing: a 2xx is success, anything else (including a redirect, which is
 * never followed) is a failure with a code. The guard's lookup runs at
 * connect time, so rebinding cannot slip past the URL check. Requests that
 * reach the network are timed into the outbound-duration histogram.
 */
export async function postWebhook(input: PostInput): Promise<PostResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = parseWebhookUrl(input.url, input.guard);
  } catch (err) {
    return { ok: false, latencyMs: 0, error: (err as WebhookError).code };
  }
  // Node connects to an IP literal without calling `lookup`: check it here.
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(literal) !== 0) {
    try {
      await resolveChecked(literal, url.protocol, input.guard);
    } catch (err) {
      return { ok: false, latencyMs: latency(), error: (err as WebhookError).code };
    }
  }
  const result = await send(url, input, latency);
  observeOutbound('webhook', result.ok, result.latencyMs);
  return result;
}

/** The request itself, once the URL passed the guard; settles exactly once. */
function send(url: URL, input: PostInput, latency: () => number): Promise<PostResult> {
  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<PostResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, latencyMs: latency() });
    };
    const req = lib.request(url, {
      method: 'POST',
      // A fresh agent per request: no pooled socket skips the connect-time check.
      agent: false,
      lookup: guardedLookup(url.protocol, input.guard) as never,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Checkpoint-Webhooks/1',
        'content-length': String(Buffer.byteLength(input.body)),
        ...input.headers,
      },
    });
    const timer = setTimeout(() => {
      finish({ ok: false, error: 'timeout' });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      const code =
        typeof err.code === 'string' && err.code.startsWith('webhook_')
          ? err.code
          : 'connect_failed';
      finish({
        ok: false,
        error: code === 'connect_failed' ? `connect_failed:${err.code ?? err.message}` : code,
      });
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        finish({ ok: false, status, error: 'redirect_refused' });
        res.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      res.on('data', (chunk: Buffer) => {
        if (truncated) return;
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          truncated = true;
          chunks.push(chunk.subarray(0, chunk.length - (size - MAX_RESPONSE_BYTES)));
          done();
          res.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', done);
      res.on('error', done);
      function done() {
        const body = Buffer.concat(chunks).toString('utf8');
        const okStatus = status >= 200 && status < 300;
        if (truncated && input.requireWholeBody) {
          finish({ ok: false, status, error: 'response_too_large', body });
        } else {
          finish(
            okStatus
              ? { ok: true, status, body }
              : { ok: false, status, error: `http_${status}`, body },
          );
        }
      }
    });
    req.end(input.body);
  });
}
