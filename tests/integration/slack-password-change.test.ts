import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { decideTicket } from '@/lib/server/approvals/decide';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { changeOwnPassword } from '@/lib/server/auth/own-account';
import { hashPassword } from '@/lib/server/auth/password';
import { postTicketMessage } from '@/lib/server/slack/messages';
import { saveGlobalSlackSettings } from '@/lib/server/slack/settings';
import { saveSlackTeamId } from '@/lib/server/slack/team';
import {
  approvalRequest,
  type Body,
  hostWithKey,
  post,
  transferContext,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { clearSlackEnv, SLACK_TEST_ENV } from './slack-env';
import { buttonPress, sendInteraction } from './slack-send';

const { standIn } = await vi.hoisted(async () => {
  const { startSlackStandIn } = await import('./slack-env');
  return { standIn: await startSlackStandIn() };
});

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/**
 * A user whose password was generated or set by an admin has not finished
 * signing up: the web lets their password session do nothing but replace it,
 * and a confirmed Slack link must not be the way around that.
 */

const TEAM = 'T0STANDIN';
const GIVEN = 'given-by-the-admin-1';
const REFUSAL = `You have not chosen your own Checkpoint password yet, so nothing was decided. Sign in once at ${SLACK_TEST_ENV.APP_URL}/profile and replace the password you were given; then decide here.`;

describe('Slack refuses decisions by a user who must still replace their password', () => {
  let ticket: { id: string; identity: string; value: string };
  let rita: { id: string };

  const press = (action: 'approve' | 'reject') =>
    sendInteraction(
      buttonPress(standIn.url, {
        user: 'U0RITA',
        actionId: `checkpoint_${action}`,
        value: ticket.value,
      }),
    );
  const submitReason = (reason: string) =>
    sendInteraction({
      type: 'view_submission',
      team: { id: TEAM },
      user: { id: 'U0RITA' },
      view: {
        callback_id: 'checkpoint_reject_reason',
        private_metadata: JSON.stringify({ t: ticket.id, i: ticket.identity }),
        state: {
          values: { reason: { reason_input: { type: 'plain_text_input', value: reason } } },
        },
      },
    });
  const state = async () => {
    const prisma = await testDb();
    const t = await prisma.approvalTicket.findUniqueOrThrow({ where: { id: ticket.id } });
    return { status: t.status, decisions: await prisma.decision.count() };
  };

  beforeEach(async () => {
    await truncateAll();
    const prisma = await testDb();
    // As createUser and resetUserPassword leave an account: an admin-known password.
    rita = await prisma.user.create({
      data: {
        email: 'rita@example.com',
        name: 'Rita',
        roles: ['reviewer'],
        passwordHash: await hashPassword(GIVEN),
        mustChangePassword: true,
        slackUserId: 'U0RITA',
        slackLinkedAt: new Date(),
      },
      select: { id: true },
    });
    const host = await hostWithKey('billing');
    const body = approvalRequest(transferContext());
    const res = await post(host.key, body);
    await saveGlobalSlackSettings(prisma, { channel: '#approvals' });
    await saveSlackTeamId(prisma, TEAM);
    expect(await postTicketMessage(prisma, res.body.id)).toBe('posted');
    const blocks = standIn.to('/api/chat.postMessage')[0].body.blocks as Body[];
    ticket = {
      id: res.body.id,
      identity: body.context_identity as string,
      value: blocks[4].elements[1].value,
    };
    standIn.reset();
  });
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
    await standIn.stop();
    clearSlackEnv();
  });

  it('Approve gets an ephemeral "sign in once and choose your password"; nothing changes', async () => {
    const res = await press('approve');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      response_type: 'ephemeral',
      replace_original: false,
      text: REFUSAL,
    });
    expect(standIn.to('/response/U0RITA')[0].body.text).toBe(REFUSAL);
    expect(await state()).toEqual({ status: 'pending', decisions: 0 });
    // The message is not touched: only the ephemeral reply went to Slack.
    expect(standIn.to('/api/')).toHaveLength(0);
  });

  it('Reject opens no dialog, and a dialog opened before the reset cannot reject either', async () => {
    const res = await press('reject');
    expect(res.body?.text).toBe(REFUSAL);
    expect(standIn.to('/api/views.open')).toHaveLength(0);
    const submitted = await submitReason('Vendor not approved');
    expect(submitted.body).toEqual({ response_action: 'errors', errors: { reason: REFUSAL } });
    expect(await state()).toEqual({ status: 'pending', decisions: 0 });
  });

  it('decideTicket refuses such a Slack actor itself, whoever calls it', async () => {
    await expect(
      decideTicket({
        ticketId: ticket.id,
        actor: { kind: 'slack', userId: rita.id },
        outcome: 'approve',
        contextIdentity: ticket.identity,
      }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    expect(await state()).toEqual({ status: 'pending', decisions: 0 });
  });

  it('once the password is replaced, the same press decides', async () => {
    await changeOwnPassword(
      { id: rita.id, roles: ['reviewer'] },
      { currentPassword: GIVEN, newPassword: 'ritas-own-password-42' },
    );
    const res = await press('approve');
    expect(res.body).toBeNull();
    expect(await state()).toEqual({ status: 'approved', decisions: 1 });
  });

  it('a user who signs in with SSO is not held to the given password (as on the web)', async () => {
    await (await testDb()).user.update({
      where: { id: rita.id },
      data: { oidcSubject: 'idp|rita' },
    });
    const res = await press('approve');
    expect(res.body).toBeNull();
    expect(await state()).toEqual({ status: 'approved', decisions: 1 });
  });
});
