import { createHash } from 'node:crypto';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { AppError } from '@/lib/server/http/api-error';
import { LINK_TTL_MS, requestSlackLink } from '@/lib/server/slack/link';
import { listSlackLinks, revokeSlackLink, unlinkOwnSlack } from '@/lib/server/slack/link-admin';
import { postTicketMessage } from '@/lib/server/slack/messages';
import { saveGlobalSlackSettings } from '@/lib/server/slack/settings';
import { saveSlackTeamId } from '@/lib/server/slack/team';
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

type Actor = { id: string; roles: ('admin' | 'reviewer' | 'auditor')[] };
const RITA_SLACK = 'U0RITA01';
const STALE = /^This confirmation is no longer valid/;

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('Slack links are proven by the Slack member (issue item 5)', () => {
  let rita: Actor;
  let mallory: Actor;
  let admin: Actor;
  let ticket: { id: string; value: string };

  /** The token in the last confirmation DM sent to `slackUser`. */
  function dmToken(slackUser: string): string {
    const dm = standIn.to('/api/chat.postMessage').filter((r) => r.body.channel === slackUser);
    expect(dm.length).toBeGreaterThan(0);
    const blocks = dm.at(-1)?.body.blocks as Body[];
    return blocks[1].elements[0].value as string;
  }
  const press = (user: string, actionId: string, value: string, team?: string | null) =>
    sendInteraction(buttonPress(standIn.url, { user, actionId, value, team }));
  const confirm = (user: string, token: string, team?: string | null) =>
    press(user, 'checkpoint_link_confirm', token, team);
  const approve = (user: string) => press(user, 'checkpoint_approve', ticket.value);
  const status = async () =>
    (await (await testDb()).approvalTicket.findUniqueOrThrow({ where: { id: ticket.id } })).status;
  const linked = async (id: string) =>
    (await testDb()).user.findUniqueOrThrow({
      where: { id },
      select: { slackUserId: true, slackLinkedAt: true },
    });

  beforeEach(async () => {
    await truncateAll();
    standIn.reset();
    const prisma = await testDb();
    const host = await hostWithKey('billing');
    rita = { ...(await userWith('rita@example.com', ['reviewer'])), roles: ['reviewer'] };
    mallory = { ...(await userWith('mallory@example.com', ['reviewer'])), roles: ['reviewer'] };
    admin = { ...(await userWith('admin@example.com', ['admin'])), roles: ['admin'] };
    await saveGlobalSlackSettings(prisma, { channel: '#approvals' });
    await saveSlackTeamId(prisma, 'T0STANDIN');
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

  it('a typed-in member id links nothing until that member presses the button in the bot DM', async () => {
    const prisma = await testDb();
    const started = Date.now();
    const req = await requestSlackLink(prisma, rita, ' u0rita01 ');
    expect(req.slackUserId).toBe(RITA_SLACK);
    const [dm] = standIn.to('/api/chat.postMessage');
    expect(dm.body.channel).toBe(RITA_SLACK);
    expect(dm.body.text).toBe('Checkpoint: link your Slack account to rita@example.com?');
    const button = (dm.body.blocks as Body[])[1].elements[0];
    expect(button.action_id).toBe('checkpoint_link_confirm');
    expect(button.text.text).toBe('This is me — link to rita@example.com');
    const token = button.value as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Only the token's SHA-256 is stored, with a 15-minute expiry.
    const row = await prisma.slackLinkRequest.findUniqueOrThrow({ where: { userId: rita.id } });
    expect(row.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row.expiresAt.getTime() - started).toBeGreaterThanOrEqual(LINK_TTL_MS - 1000);
    expect(row.expiresAt.getTime() - started).toBeLessThanOrEqual(LINK_TTL_MS + 5000);
    expect((await linked(rita.id)).slackUserId).toBeNull();

    // Pending: a decision by that member is refused and changes nothing.
    const early = await approve(RITA_SLACK);
    expect(early.status).toBe(200);
    expect(early.body?.text).toMatch(/^Your Slack account is not linked yet/);
    expect(early.body?.text).toContain('https://checkpoint.test/profile');
    expect(await status()).toBe('pending');

    const done = await confirm(RITA_SLACK, token);
    expect(done.status).toBe(200);
    const text = 'Linked: Slack decisions by this account now act as rita@example.com.';
    expect(done.body).toEqual({ replace_original: true, text });
    expect(standIn.to(`/response/${RITA_SLACK}`).at(-1)?.body).toEqual({
      replace_original: true,
      text,
    });
    const after = await linked(rita.id);
    expect(after.slackUserId).toBe(RITA_SLACK);
    expect(after.slackLinkedAt).toBeInstanceOf(Date);
    expect(await prisma.slackLinkRequest.count()).toBe(0);
    expect(
      await prisma.auditEvent.count({ where: { action: 'user.slack_linked', targetId: rita.id } }),
    ).toBe(1);

    // One use only.
    expect((await confirm(RITA_SLACK, token)).body?.text).toMatch(STALE);
    expect((await approve(RITA_SLACK)).body).toBeNull();
    expect(await status()).toBe('approved');
  });

  it('only the member the DM went to can confirm; another workspace, a forged token or an expired one links nothing', async () => {
    const prisma = await testDb();
    await requestSlackLink(prisma, rita, RITA_SLACK);
    const token = dmToken(RITA_SLACK);

    const other = await confirm('U0MALLORY1', token);
    expect(other.status).toBe(200);
    expect(other.body?.text).toBe(
      'This confirmation was sent to another Slack account; nothing was linked.',
    );
    for (const team of ['T0ELSEWHERE', null]) {
      const foreign = await confirm(RITA_SLACK, token, team);
      expect(foreign.status).toBe(200);
      expect(foreign.body?.text).toBe(
        'This Slack workspace is not the one Checkpoint is connected to; nothing was done.',
      );
    }
    expect((await confirm(RITA_SLACK, 'A'.repeat(43))).body?.text).toMatch(STALE);
    expect((await linked(rita.id)).slackUserId).toBeNull();

    await prisma.slackLinkRequest.update({
      where: { userId: rita.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await confirm(RITA_SLACK, token)).body?.text).toMatch(/^This confirmation expired/);
    expect((await linked(rita.id)).slackUserId).toBeNull();
    expect(await prisma.slackLinkRequest.count()).toBe(1);
  });

  it('squatting: a pending claim does not block the real owner, and a confirmed id cannot be claimed again', async () => {
    const prisma = await testDb();
    await requestSlackLink(prisma, mallory, RITA_SLACK);
    const mallorysToken = dmToken(RITA_SLACK);
    await requestSlackLink(prisma, rita, RITA_SLACK);
    const ritasToken = dmToken(RITA_SLACK);
    expect(ritasToken).not.toBe(mallorysToken);
    expect((await confirm(RITA_SLACK, ritasToken)).body?.replace_original).toBe(true);
    // The member presses the squatter's DM too: refused, Rita keeps the link.
    const squat = await confirm(RITA_SLACK, mallorysToken);
    expect(squat.body?.text).toMatch(
      /^This Slack account is already linked to another Checkpoint user/,
    );
    expect((await linked(mallory.id)).slackUserId).toBeNull();
    expect((await linked(rita.id)).slackUserId).toBe(RITA_SLACK);

    const taken = await refusal(requestSlackLink(prisma, mallory, RITA_SLACK));
    expect([taken.status, taken.code]).toEqual([409, 'slack_user_id_taken']);
    expect(taken.details).toMatchObject({
      fields: { slackUserId: { code: 'slack_user_id_taken' } },
    });
  });

  it('"Not me" withdraws a request; users unlink their own; admins list every link and revoke any', async () => {
    const prisma = await testDb();
    await requestSlackLink(prisma, rita, RITA_SLACK);
    const declined = await press(RITA_SLACK, 'checkpoint_link_decline', dmToken(RITA_SLACK));
    expect(declined.body).toEqual({
      replace_original: true,
      text: 'Not linked. The request was withdrawn.',
    });
    expect(await prisma.slackLinkRequest.count()).toBe(0);

    await requestSlackLink(prisma, rita, RITA_SLACK);
    await confirm(RITA_SLACK, dmToken(RITA_SLACK));
    await requestSlackLink(prisma, mallory, 'U0MALLORY1');
    const links = await listSlackLinks(prisma);
    expect(links.map((l) => [l.email, l.slackUserId, l.state])).toEqual([
      ['rita@example.com', RITA_SLACK, 'verified'],
      ['mallory@example.com', 'U0MALLORY1', 'pending'],
    ]);
    expect(links[0].verifiedAt).toBeInstanceOf(Date);
    expect(links[1].verifiedAt).toBeNull();

    const notAdmin = await refusal(revokeSlackLink(prisma, mallory, rita.id));
    expect(notAdmin.code).toBe('forbidden');
    expect((await linked(rita.id)).slackUserId).toBe(RITA_SLACK);
    expect(await revokeSlackLink(prisma, admin, rita.id)).toBe(true);
    expect(await linked(rita.id)).toEqual({ slackUserId: null, slackLinkedAt: null });
    expect((await approve(RITA_SLACK)).body?.text).toMatch(
      /^Your Slack account is not linked to a Checkpoint reviewer/,
    );
    expect(await status()).toBe('pending');
    expect(
      await prisma.auditEvent.count({ where: { action: 'slack.link_revoked', actorId: admin.id } }),
    ).toBe(1);

    expect(await unlinkOwnSlack(prisma, mallory)).toBe(true);
    expect(await unlinkOwnSlack(prisma, mallory)).toBe(false);
    expect(await listSlackLinks(prisma)).toEqual([]);
  });

  it('requests are checked: a bad id, a DM Slack refuses (the request is dropped), a second one within a minute; a newer one voids the older token', async () => {
    const prisma = await testDb();
    const bad = await refusal(requestSlackLink(prisma, rita, 'not a slack id'));
    expect(bad.details).toMatchObject({
      fields: { slackUserId: { code: 'slack_user_id_invalid' } },
    });

    standIn.answerNext('chat.postMessage', { ok: false, error: 'user_not_found' });
    const dmFailed = await refusal(requestSlackLink(prisma, rita, RITA_SLACK));
    expect([dmFailed.status, dmFailed.code]).toEqual([422, 'slack_link_dm_failed']);
    expect(dmFailed.message).toContain('user_not_found');
    expect(await prisma.slackLinkRequest.count()).toBe(0);

    await requestSlackLink(prisma, rita, RITA_SLACK);
    const first = dmToken(RITA_SLACK);
    const soon = await refusal(requestSlackLink(prisma, rita, RITA_SLACK));
    expect([soon.status, soon.code]).toEqual([429, 'slack_link_too_soon']);
    await requestSlackLink(prisma, rita, RITA_SLACK, new Date(Date.now() + 61_000));
    const second = dmToken(RITA_SLACK);
    expect((await confirm(RITA_SLACK, first)).body?.text).toMatch(STALE);
    expect((await confirm(RITA_SLACK, second)).body?.replace_original).toBe(true);
  });

  it('an id set before links were confirmed (no slackLinkedAt) decides nothing', async () => {
    await (await testDb()).user.update({
      where: { id: rita.id },
      data: { slackUserId: RITA_SLACK },
    });
    const res = await approve(RITA_SLACK);
    expect(res.body?.text).toMatch(/^Your Slack account is not linked/);
    expect(await status()).toBe('pending');
  });
});
