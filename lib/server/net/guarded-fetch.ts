import 'server-only';
import http from 'node:http';
import https from 'node:https';
import { observeOutbound } from '../metrics/outbound';
import { MAX_RESPONSE_BYTES } from './http-post';
import {
  type GuardOptions,
  guardedLookup,
  guardOptionsFromConfig,
  parseWebhookUrl,
  resolveChecked,
} from './ssrf';

/**
 * A `fetch` that goes through the SSRF guard, for clients that take one
 * (@slack/webhook's IncomingWebhook): the URL's shape and addresses are
 * checked before the request, and again in the socket's own lookup (DNS
 * rebinding). Node's http client follows no redirects (a 3xx is a failed
 * send), and the answer is read up to a cap. Only what IncomingWebhook uses
 * is supported: POST, string body, text().
 */
export function makeGuardedFetch(opts?: () => GuardOptions): typeof fetch {
  return async (input, init) => {
    const options = opts?.() ?? guardOptionsFromConfig();
    const url = parseWebhookUrl(String(input instanceof Request ? input.url : input), options);
    // Node skips `lookup` for IP literals, so check every URL up front too.
    await resolveChecked(url.hostname.replace(/^\[(.*)\]$/, '$1'), url.protocol, options);
    const started = performance.now();
    const settled = (ok: boolean) =>
      observeOutbound('slack_webhook', ok, Math.round(performance.now() - started));
    return request(url, options, init).then(
      (res) => {
        settled(res.ok);
        return res;
      },
      (err: unknown) => {
        settled(false);
        throw err;
      },
    );
  };
}

function request(url: URL, options: GuardOptions, init?: RequestInit): Promise<Response> {
  const mod = url.protocol === 'https:' ? https : http;
  const headers = Object.fromEntries(new Headers(init?.headers).entries());
  return new Promise<Response>((resolve, reject) => {
    const req = mod.request(
      url,
      {
        method: init?.method ?? 'GET',
        headers,
        lookup: guardedLookup(url.protocol, options) as never,
        signal: init?.signal ?? undefined,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) {
            res.destroy();
            return;
          }
          chunks.push(c);
        });
        res.on('error', reject);
        res.on('close', () => {
          const status = res.statusCode ?? 502;
          resolve(
            new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), {
              status: status < 200 ? 502 : status,
              statusText: res.statusMessage ?? '',
            }),
          );
        });
      },
    );
    req.on('error', reject);
    req.end(typeof init?.body === 'string' ? init.body : undefined);
  });
}

export const guardedFetch: typeof fetch = makeGuardedFetch();
