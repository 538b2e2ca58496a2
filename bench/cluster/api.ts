// What a host and a reviewer do, over HTTP only: post approval requests,
// long-poll them, and approve through the Slack interactivity endpoint (the
// one reviewer path that is a plain signed HTTP request: the web page
// decides through a server action).
import { createHmac } from 'node:crypto';
import { buildContext, jcsSha256 } from '@checkpoint/agent-hooks';

export interface HostClient {
  name: string;
  id: string;
  key: string;
}

export interface Ticket {
  id: string;
  identity: string;
  host: HostClient;
}

let seq = 0;

function approvalBody(timeoutMs: number | undefined): { body: string; identity: string } {
  const n = ++seq;
  const ctx = buildContext(
    'pre_tool_call',
    {
      timestamp: new Date().toISOString(),
      sequence: n,
      agent: { id: 'bench-agent', framework: 'bench' },
      session: { id: `cluster-${Math.floor(n / 100)}` },
    },
    { tool_call: { id: `c${n}`, name: 'wire_transfer', args: { to: 'ACME', amount: 20_000 + n } } },
  );
  const identity = jcsSha256.compute(ctx);
  const body = JSON.stringify({
    context_identity: identity,
    interception_point: 'pre_tool_call',
    verdict: { decision: 'deny', reason: 'amount_over_threshold', approval: {} },
    context: ctx,
    ...(timeoutMs !== undefined ? { timeout_ms: timeoutMs } : {}),
  });
  return { body, identity };
}

function auth(host: HostClient) {
  return { authorization: `Bearer ${host.key}`, 'content-type': 'application/json' };
}

/** POST /api/v1/approvals; `timeoutMs` as a function lets every ticket aim at one deadline. */
export async function createTicket(
  base: string,
  host: HostClient,
  timeoutMs?: () => number,
): Promise<Ticket> {
  const { body, identity } = approvalBody(timeoutMs?.());
  const res = await fetch(`${base}/api/v1/approvals`, {
    method: 'POST',
    headers: auth(host),
    body,
  });
  if (res.status !== 201)
    throw new Error(`POST ${base} answered ${res.status}: ${await res.text()}`);
  const t = (await res.json()) as { id: string };
  return { id: t.id, identity, host };
}

/** Runs `fn` over `items` with at most `concurrency` at once, in order of start. */
export async function pool<T, R>(
  items: T[],
  concurrency: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

export interface PollAnswer {
  /** Wall clock (ms since the epoch) when the 200 arrived. */
  wallAt: number;
  outcome: string;
  /** Long-polls that came back 202 (a full wait) or failed before the answer. */
  repolls: number;
  errors: number;
}

/** GET ?wait=30 until the ticket is resolved (202 asks again at once). */
export async function longPoll(
  base: string,
  ticket: Ticket,
  signal?: AbortSignal,
): Promise<PollAnswer> {
  let repolls = 0;
  let errors = 0;
  for (;;) {
    try {
      const res = await fetch(`${base}/api/v1/approvals/${ticket.id}?wait=30`, {
        headers: auth(ticket.host),
        signal,
      });
      const body = (await res.json()) as { outcome?: string };
      if (res.status === 200) {
        return { wallAt: Date.now(), outcome: String(body.outcome), repolls, errors };
      }
      if (res.status !== 202) throw new Error(`long-poll answered ${res.status}`);
      repolls++;
    } catch (err) {
      if (signal?.aborted) throw err;
      errors++;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

export interface SlackReviewer {
  signingSecret: string;
  teamId: string;
  userId: string;
}

/**
 * Presses "Approve" as a linked Slack reviewer: the signed (v0) request Slack
 * would send to POST /api/slack/interactions. 200 with no body is a decision;
 * a body is the ephemeral refusal Slack would show.
 */
export async function approveViaSlack(
  base: string,
  reviewer: SlackReviewer,
  ticket: Ticket,
): Promise<void> {
  const payload = {
    type: 'block_actions',
    team: { id: reviewer.teamId },
    user: { id: reviewer.userId, team_id: reviewer.teamId },
    actions: [
      {
        action_id: 'checkpoint_approve',
        value: JSON.stringify({ t: ticket.id, i: ticket.identity }),
      },
    ],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const ts = String(Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', reviewer.signingSecret)
    .update(`v0:${ts}:${body}`)
    .digest('hex')}`;
  const res = await fetch(`${base}/api/slack/interactions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': ts,
      'x-slack-signature': signature,
    },
    body,
  });
  const text = await res.text();
  if (res.status !== 200 || text !== '') {
    throw new Error(`approve ${ticket.id} on ${base}: ${res.status} ${text.slice(0, 300)}`);
  }
}
