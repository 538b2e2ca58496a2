import { NextRequest } from 'next/server';
import { POST as interactions } from '@/app/api/slack/interactions/route';
import { slackSignature } from '@/lib/server/slack/verify';
import type { Body } from './approvals-fixtures';
import { SLACK_TEST_ENV } from './slack-env';

/** What Slack sends to the interactions URL: form-encoded `payload`, signed v0 over the raw body. */
export async function sendInteraction(
  payload: object,
): Promise<{ status: number; body: Body | null }> {
  const raw = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const ts = String(Math.floor(Date.now() / 1000));
  const req = new NextRequest('http://localhost/api/slack/interactions', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': ts,
      'x-slack-signature': slackSignature(SLACK_TEST_ENV.SLACK_SIGNING_SECRET, ts, raw),
    },
    body: raw,
  });
  const res = await interactions(req, { params: Promise.resolve({}) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Body) : null };
}

/** A button press as Slack sends it. */
export function buttonPress(
  responseBase: string,
  opts: { user: string; team?: string | null; actionId: string; value: string },
) {
  return {
    type: 'block_actions',
    team: opts.team === null ? null : { id: opts.team ?? 'T0STANDIN' },
    user: { id: opts.user, username: opts.user },
    trigger_id: 'trigger-123',
    response_url: `${responseBase}/response/${opts.user}`,
    actions: [{ action_id: opts.actionId, value: opts.value, type: 'button' }],
  };
}
