import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for Slack on 127.0.0.1: the Web API under /api/<method>
 * (what `slackApiUrl` points the real WebClient at), incoming webhooks under
 * /hooks/…, and response_url endpoints under /response/…. It records every
 * request exactly as received, so tests assert method, headers and body.
 */

export interface SlackRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  raw: string;
  /** Form fields (Web API) with JSON-valued fields decoded, or the JSON body. */
  body: Record<string, unknown>;
}

export class SlackStandIn {
  readonly requests: SlackRequest[] = [];
  private server?: Server;
  private failures: number[] = [];
  /** Slack-level answers (`{ok: false, error}` with HTTP 200) queued per Web API method. */
  private answers = new Map<string, object[]>();
  /** The workspace `auth.test` reports for the bot token. */
  teamId = 'T0STANDIN';
  private counter = 0;
  url = '';

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const headers = Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [
            k,
            Array.isArray(v) ? v.join(', ') : (v ?? ''),
          ]),
        );
        const path = req.url ?? '';
        this.requests.push({
          method: req.method ?? '',
          path,
          headers,
          raw,
          body: decode(headers['content-type'], raw),
        });
        const status = this.failures.shift();
        if (status) {
          res.writeHead(status, { 'content-type': 'text/plain' }).end('stand-in failure');
          return;
        }
        if (path.startsWith('/redirect/')) {
          res.writeHead(302, { location: `${this.url}/hooks/redirected` }).end();
          return;
        }
        if (path.startsWith('/api/')) {
          const method = path.slice('/api/'.length);
          const queued = this.answers.get(method)?.shift();
          const answer = queued
            ? queued
            : method === 'auth.test'
              ? { ok: true, team_id: this.teamId, team: 'Stand-in', user_id: 'U0BOT' }
              : method === 'chat.postMessage'
                ? {
                    ok: true,
                    channel: 'C0STANDIN',
                    ts: `1764670000.${String(++this.counter).padStart(6, '0')}`,
                  }
                : { ok: true };
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** The next `n` requests are answered with `status` (then normal service resumes). */
  failNext(n: number, status = 500): void {
    this.failures.push(...Array.from({ length: n }, () => status));
  }

  /** The next call of `method` gets `answer` (e.g. `{ok: false, error: 'user_not_found'}`). */
  answerNext(method: string, answer: object): void {
    this.answers.set(method, [...(this.answers.get(method) ?? []), answer]);
  }

  to(pathPrefix: string): SlackRequest[] {
    return this.requests.filter((r) => r.path.startsWith(pathPrefix));
  }

  reset(): void {
    this.requests.length = 0;
    this.failures = [];
    this.answers.clear();
    this.teamId = 'T0STANDIN';
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function decode(contentType: string | undefined, raw: string): Record<string, unknown> {
  if (contentType?.startsWith('application/json'))
    return JSON.parse(raw) as Record<string, unknown>;
  if (contentType?.startsWith('application/x-www-form-urlencoded')) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of new URLSearchParams(raw)) {
      out[k] = k === 'blocks' || k === 'view' ? JSON.parse(v) : v;
    }
    return out;
  }
  return {};
}
