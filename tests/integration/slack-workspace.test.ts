import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { AppError } from '@/lib/server/http/api-error';
import { postTicketMessage } from '@/lib/server/slack/messages';
import { saveGlobalSlackSettings } from '@/lib/server/slack/settings';
import { readSlackTeam, saveSlackTeamId } from '@/lib/server/slack/team';
import {
  approvalRequest,
  type Body,
  hostWithKey,
  post,
  transferContext,
  userWith,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { clearSlackEnv } from './slack-env';
import { buttonPress, sendInteraction } from './slack-send';

const { standIn } = await vi.hoisted(async () => {
  const { startSlackStandIn } = await import('./slack-env');
  return { standIn: await startSlackStandIn() };
});

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

const FOREIGN = 'This Slack workspace is not the one Checkpoint is connected to; nothing was done.';
const UNKNOWN =
  'Checkpoint does not know which Slack workspace it is connected to (an admin sets it on the Slack settings page); nothing was done.';

describe('Slack interactions count only from the configured workspace (team.id)', () => {
  let ticket: { id: string; value: string };

  const approve = (team?: string | null) =>
    sendInteraction(
      buttonPress(standIn.url, {
        user: 'U0RITA01',
        actionId: 'checkpoint_approve',
        value: ticket.value,
        team,
      }),
    );
  const status = async () =>
    (await (await testDb()).approvalTicket.findUniqueOrThrow({ where: { id: ticket.id } })).status;

  beforeEach(async () => {
    await truncateAll();
    standIn.reset();
    const prisma = await testDb();
    const host = await hostWithKey('billing');
    const rita = await userWith('rita@example.com', ['reviewer']);
    await prisma.user.update({
      where: { id: rita.id },
      data: { slackUserId: 'U0RITA01', slackLinkedAt: new Date() },
    });
    await saveGlobalSlackSettings(prisma, { channel: '#approvals' });
    const res = await post(host.key, approvalRequest(transferContext()));
    expect(await postTicketMessage(prisma, res.body.id)).toBe('posted');
    const blocks = standIn.to('/api/chat.postMessage')[0].body.blocks as Body[];
    ticket = { id: res.body.id, value: blocks[4].elements[1].value };
    standIn.reset();
  });
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
    await standIn.stop();
    clearSlackEnv();
  });

  it('unset, the workspace is learned once from auth.test of the bot token; a press from another one is refused', async () => {
    expect(await readSlackTeam(await testDb())).toBeNull();
    const foreign = await approve('T0ELSEWHERE');
    expect(foreign.status).toBe(200);
    expect(foreign.body).toEqual({
      response_type: 'ephemeral',
      replace_original: false,
      text: FOREIGN,
    });
    expect(standIn.to('/response/U0RITA01')[0].body.text).toBe(FOREIGN);
    expect(await status()).toBe('pending');
    expect(standIn.to('/api/auth.test')).toHaveLength(1);
    expect(await readSlackTeam(await testDb())).toEqual({
      teamId: 'T0STANDIN',
      source: 'auth.test',
    });

    expect((await approve('T0STANDIN')).body).toBeNull();
    expect(await status()).toBe('approved');
    expect(standIn.to('/api/auth.test')).toHaveLength(1);
  });

  it('an admin-set workspace wins over the bot token; a payload without a team is refused', async () => {
    await saveSlackTeamId(await testDb(), 't0mine001');
    expect((await approve('T0STANDIN')).body?.text).toBe(FOREIGN);
    expect((await approve(null)).body?.text).toBe(FOREIGN);
    expect(standIn.to('/api/auth.test')).toHaveLength(0);
    expect(await status()).toBe('pending');
    expect((await approve('T0MINE001')).body).toBeNull();
    expect(await status()).toBe('approved');
  });

  it('when the workspace cannot be known (auth.test fails) every interaction is refused, modals included', async () => {
    standIn.answerNext('auth.test', { ok: false, error: 'invalid_auth' });
    const res = await approve('T0STANDIN');
    expect(res.status).toBe(200);
    expect(res.body?.text).toBe(UNKNOWN);
    expect(await status()).toBe('pending');
    expect(await readSlackTeam(await testDb())).toBeNull();

    // Still unknown, so the next interaction asks auth.test again: it fails too.
    standIn.failNext(1, 500);
    const modal = await sendInteraction({
      type: 'view_submission',
      team: { id: 'T0STANDIN' },
      user: { id: 'U0RITA01' },
      view: {
        callback_id: 'checkpoint_reject_reason',
        private_metadata: ticket.value,
        state: { values: { reason: { reason_input: { value: 'no' } } } },
      },
    });
    expect(modal).toEqual({
      status: 200,
      body: { response_action: 'errors', errors: { reason: UNKNOWN } },
    });
    expect(await status()).toBe('pending');
  });

  it('the admin setting is validated; blank clears it', async () => {
    const prisma = await testDb();
    const err = await saveSlackTeamId(prisma, 'not-a-team').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).details).toMatchObject({
      fields: { teamId: { code: 'slack_team_id_invalid' } },
    });
    expect(await readSlackTeam(prisma)).toBeNull();
    await saveSlackTeamId(prisma, 'T0MINE001');
    expect(await readSlackTeam(prisma)).toEqual({ teamId: 'T0MINE001', source: 'admin' });
    expect(await saveSlackTeamId(prisma, '  ')).toBeNull();
    expect(await readSlackTeam(prisma)).toBeNull();
  });
});
