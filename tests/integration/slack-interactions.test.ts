import { createHash } from 'node:crypto';
import { NextRequest } from 'next/server';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST as interactions } from '@/app/api/slack/interactions/route';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { postTicketMessage } from '@/lib/server/slack/messages';
import { saveGlobalSlackSettings } from '@/lib/server/slack/settings';
import { saveSlackTeamId } from '@/lib/server/slack/team';
import { slackSignature } from '@/lib/server/slack/verify';
import {
  approvalRequest,
  type Body,
  hostWithKey,
  post,
  transferContext,
  userWith,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { clearSlackEnv, SLACK_TEST_ENV } from './slack-env';

const { standIn } = await vi.hoisted(async () => {
  const { startSlackStandIn } = await import('./slack-env');
  return { standIn: await startSlackStandIn() };
});

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

const SECRET = SLACK_TEST_ENV.SLACK_SIGNING_SECRET;
const TEAM = 'T0STANDIN';
const now = () => String(Math.floor(Date.now() / 1000));

/** What Slack sends: form-encoded `payload`, signed v0 over the raw body. */
async function send(
  payload: object,
  sign: { secret?: string; timestamp?: string; signature?: string } = {},
): Promise<{ status: number; body: Body | null }> {
  const raw = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const ts = sign.timestamp ?? now();
  const req = new NextRequest('http://localhost/api/slack/interactions', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': ts,
      'x-slack-signature': sign.signature ?? slackSignature(sign.secret ?? SECRET, ts, raw),
    },
    body: raw,
  });
  const res = await interactions(req, { params: Promise.resolve({}) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Body) : null };
}

function press(action: 'approve' | 'reject', slackUser: string, value: string) {
  return {
    type: 'block_actions',
    team: { id: TEAM },
    user: { id: slackUser, username: slackUser },
    trigger_id: 'trigger-123',
    response_url: `${standIn.url}/response/${slackUser}`,
    actions: [{ action_id: `checkpoint_${action}`, value, type: 'button' }],
  };
}

function submitReason(slackUser: string, metadata: string, reason: string) {
  return {
    type: 'view_submission',
    team: { id: TEAM },
    user: { id: slackUser },
    view: {
      callback_id: 'checkpoint_reject_reason',
      private_metadata: metadata,
      state: { values: { reason: { reason_input: { type: 'plain_text_input', value: reason } } } },
    },
  };
}

describe('POST /api/slack/interactions (v0 signature first; reviewer mapping; §9 echo; exactly once)', () => {
  let ticket: { id: string; identity: string; value: string };

  beforeEach(async () => {
    await truncateAll();
    const prisma = await testDb();
    const host = await hostWithKey('billing');
    const rita = await userWith('rita@example.com', ['reviewer']);
    await prisma.user.update({
      where: { id: rita.id },
      // Linked as the confirmation press leaves it (slack-link.test.ts covers the press).
      data: { name: 'Rita', slackUserId: 'U0RITA', slackLinkedAt: new Date() },
    });
    const aud = await userWith('audrey@example.com', ['auditor']);
    await prisma.user.update({
      where: { id: aud.id },
      data: { slackUserId: 'U0AUDREY', slackLinkedAt: new Date() },
    });
    const body = approvalRequest(transferContext());
    const res = await post(host.key, body);
    await saveGlobalSlackSettings(prisma, { channel: '#approvals' });
    await saveSlackTeamId(prisma, TEAM);
    expect(await postTicketMessage(prisma, res.body.id)).toBe('posted');
    const [posted] = standIn.to('/api/chat.postMessage');
    const approve = (posted.body.blocks as Body[])[4].elements[1];
    ticket = { id: res.body.id, identity: body.context_identity as string, value: approve.value };
    standIn.reset();
  });
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
    await standIn.stop();
    clearSlackEnv();
  });

  const status = async () =>
    (await (await testDb()).approvalTicket.findUniqueOrThrow({ where: { id: ticket.id } })).status;

  it('a bad signature gets 401 and decides nothing (checked before the payload is read)', async () => {
    const res = await send(press('approve', 'U0RITA', ticket.value), {
      secret: 'not-the-signing-secret',
    });
    expect(res.status).toBe(401);
    expect(res.body?.error.code).toBe('slack_signature_invalid');
    const missing = await send(press('approve', 'U0RITA', ticket.value), { signature: '' });
    expect(missing.status).toBe(401);
    expect(missing.body?.error.code).toBe('slack_signature_missing');
    expect(await status()).toBe('pending');
    expect(standIn.requests).toHaveLength(0);
  });

  it('a timestamp outside the 5-minute window gets 401, even correctly signed (no replays)', async () => {
    const old = String(Math.floor(Date.now() / 1000) - 5 * 60 - 5);
    const res = await send(press('approve', 'U0RITA', ticket.value), { timestamp: old });
    expect(res.status).toBe(401);
    expect(res.body?.error.code).toBe('slack_signature_stale');
    expect(await status()).toBe('pending');
  });

  it('Approve by a linked reviewer decides the ticket (as slack, echoing the identity) and updates the message', async () => {
    const res = await send(press('approve', 'U0RITA', ticket.value));
    expect(res.status).toBe(200);
    expect(res.body).toBeNull();
    const prisma = await testDb();
    const t = await prisma.approvalTicket.findUniqueOrThrow({
      where: { id: ticket.id },
      include: { decision: { include: { user: true } } },
    });
    expect(t.status).toBe('approved');
    expect(t.decision?.decidedByKind).toBe('slack');
    expect(t.decision?.user?.email).toBe('rita@example.com');
    expect(t.decision?.contextIdentity).toBe(ticket.identity);
    // The verdict points at the signed receipt (§5.3 evidence, docs/receipts.md).
    const receipt = await prisma.decision.findUniqueOrThrow({
      where: { ticketId: ticket.id },
      select: { receipt: true },
    });
    expect(receipt.receipt).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(t.resolution).toEqual({
      outcome: 'approve',
      context_identity: ticket.identity,
      verdict: {
        decision: 'allow',
        evidence: {
          artefact: `sha256:${createHash('sha256')
            .update(receipt.receipt as string)
            .digest('hex')}`,
          verification_pointers: {
            jwks: expect.stringMatching(/\/\.well-known\/jwks\.json$/),
            receipt: expect.stringMatching(new RegExp(`/api/v1/approvals/${ticket.id}/receipt$`)),
          },
        },
      },
    });

    const updates = standIn.to('/api/chat.update');
    expect(updates).toHaveLength(1);
    expect(updates[0].headers.authorization).toBe(`Bearer ${SLACK_TEST_ENV.SLACK_BOT_TOKEN}`);
    expect(updates[0].body.channel).toBe(t.slackChannel);
    expect(updates[0].body.ts).toBe(t.slackTs);
    const blocks = updates[0].body.blocks as Body[];
    expect(blocks[0].text.text).toBe('Approval approved');
    expect(JSON.stringify(blocks)).toMatch(
      /:white_check_mark: \*Approved\* by Rita \(in Slack\) <!date/,
    );
    expect(blocks.at(-1)?.elements.map((e: Body) => e.action_id)).toEqual(['checkpoint_open']);
  });

  it('Slack failing the update does not undo the decision: the slack.update job is queued to retry it', async () => {
    standIn.failNext(1, 500);
    const res = await send(press('approve', 'U0RITA', ticket.value));
    expect(res.status).toBe(200);
    expect(await status()).toBe('approved');
    expect(standIn.to('/api/chat.update')).toHaveLength(1);
    const row = await (await testDb()).outboxEvent.findUnique({
      where: { dedupeKey: `slack.update.${ticket.id}` },
    });
    expect(row?.kind).toBe('slack.update');
  });

  it('a second (stale or duplicate) press gets an ephemeral "already decided by X at T" and changes nothing', async () => {
    await send(press('approve', 'U0RITA', ticket.value));
    const decidedAt = (
      await (await testDb()).decision.findUniqueOrThrow({ where: { ticketId: ticket.id } })
    ).createdAt;
    standIn.reset();
    const again = await send(press('approve', 'U0RITA', ticket.value));
    expect(again.status).toBe(200);
    const text = `Already decided (approve) by Rita at ${decidedAt.toISOString()}; your press changed nothing.`;
    expect(again.body).toEqual({ response_type: 'ephemeral', replace_original: false, text });
    const replies = standIn.to('/response/U0RITA');
    expect(replies).toHaveLength(1);
    expect(replies[0].headers['content-type']).toBe('application/json');
    expect(replies[0].body).toEqual({ response_type: 'ephemeral', replace_original: false, text });
    // Reject on a settled ticket: refused before any modal opens.
    const reject = await send(press('reject', 'U0RITA', ticket.value));
    expect(reject.body?.text).toBe(text);
    expect(standIn.to('/api/views.open')).toHaveLength(0);
    expect(await (await testDb()).decision.count({ where: { ticketId: ticket.id } })).toBe(1);
  });

  it('an unlinked Slack user, or one who is not a reviewer, gets an ephemeral refusal; nothing is decided', async () => {
    const stranger = await send(press('approve', 'U0STRANGER', ticket.value));
    expect(stranger.status).toBe(200);
    expect(stranger.body?.response_type).toBe('ephemeral');
    expect(stranger.body?.text).toBe(
      `Your Slack account is not linked to a Checkpoint reviewer, so nothing was decided. Link it on your profile: ${SLACK_TEST_ENV.APP_URL}/profile`,
    );
    expect(standIn.to('/response/U0STRANGER')[0].body.text).toBe(stranger.body?.text);
    const auditor = await send(press('approve', 'U0AUDREY', ticket.value));
    expect(auditor.body?.text).toBe(
      'Only reviewers and admins decide approvals; nothing was decided.',
    );
    await (await testDb()).user.update({
      where: { slackUserId: 'U0RITA' },
      data: { disabled: true },
    });
    const disabled = await send(press('approve', 'U0RITA', ticket.value));
    expect(disabled.body?.text).toBe(
      'Your Checkpoint account is disabled, so nothing was decided.',
    );
    expect(await status()).toBe('pending');
    expect(standIn.to('/api/')).toHaveLength(0);
  });

  it('a button carrying another identity is refused (§9 echo): the reviewer is sent to the ticket', async () => {
    const forged = JSON.stringify({ t: ticket.id, i: 'sha256:0000' });
    const res = await send(press('approve', 'U0RITA', forged));
    expect(res.body?.text).toMatch(/^This message shows an older version of the ticket/);
    expect(await status()).toBe('pending');
  });

  it('Reject opens a modal for the reason; submitting it rejects with that reason and updates the message', async () => {
    const res = await send(press('reject', 'U0RITA', ticket.value));
    expect(res.status).toBe(200);
    expect(await status()).toBe('pending');
    const opened = standIn.to('/api/views.open');
    expect(opened).toHaveLength(1);
    expect(opened[0].body.trigger_id).toBe('trigger-123');
    const view = opened[0].body.view as Body;
    expect(view.callback_id).toBe('checkpoint_reject_reason');
    expect(JSON.parse(view.private_metadata)).toEqual({ t: ticket.id, i: ticket.identity });
    expect(view.blocks[1].element.action_id).toBe('reason_input');

    const empty = await send(submitReason('U0RITA', view.private_metadata, '   '));
    expect(empty.body).toEqual({
      response_action: 'errors',
      errors: { reason: 'A reject needs a reason: the agent receives it.' },
    });
    expect(await status()).toBe('pending');

    const done = await send(submitReason('U0RITA', view.private_metadata, 'Vendor not approved'));
    expect(done.body).toEqual({ response_action: 'clear' });
    const prisma = await testDb();
    const t = await prisma.approvalTicket.findUniqueOrThrow({
      where: { id: ticket.id },
      include: { decision: true },
    });
    expect(t.status).toBe('rejected');
    expect(t.decision?.decidedByKind).toBe('slack');
    expect(t.decision?.note).toBe('Vendor not approved');
    expect((t.resolution as Body).verdict).toMatchObject({
      decision: 'deny',
      message: 'Vendor not approved',
    });
    const update = standIn.to('/api/chat.update')[0];
    expect(JSON.stringify(update.body.blocks)).toContain('*Rejected* by Rita (in Slack)');

    const late = await send(submitReason('U0RITA', view.private_metadata, 'again'));
    expect(late.body?.errors.reason).toMatch(/^Already decided \(reject\) by Rita at /);
  });

  it('with no signing secret configured every interaction is refused', async () => {
    const saved = process.env.SLACK_SIGNING_SECRET;
    vi.resetModules();
    delete process.env.SLACK_SIGNING_SECRET;
    try {
      const { POST } = await import('@/app/api/slack/interactions/route');
      const raw = new URLSearchParams({ payload: '{}' }).toString();
      const ts = now();
      const res = await POST(
        new NextRequest('http://localhost/api/slack/interactions', {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-slack-request-timestamp': ts,
            'x-slack-signature': slackSignature(SECRET, ts, raw),
          },
          body: raw,
        }),
        { params: Promise.resolve({}) },
      );
      expect(res.status).toBe(401);
      expect(((await res.json()) as Body).error.code).toBe('slack_not_configured');
    } finally {
      process.env.SLACK_SIGNING_SECRET = saved;
    }
  });
});
