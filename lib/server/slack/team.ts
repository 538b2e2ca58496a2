import 'server-only';
import { z } from 'zod';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { config } from '../config';
import { AppError } from '../http/api-error';
import { moduleLogger } from '../logger';
import { withTimeout } from '../queue/connection';
import { slackWebClient } from './client';

/**
 * The one Slack workspace whose interactions count. A signing secret is per
 * Slack *app*, and an app can be installed in more than one workspace, so a
 * valid signature alone does not say the click came from ours.
 *
 * Where the id comes from, safest first: an admin sets it on /settings/slack;
 * else it is learned once from `auth.test` of the bot token (the workspace
 * the bot posts into, which is where our messages and buttons live) and
 * stored. Without either, every interaction is refused (fail closed).
 */

const log = moduleLogger('slack');
export const SLACK_TEAM_SETTING_KEY = 'slack_team';
const TEAM_ID = /^[TE][A-Z0-9]{6,20}$/;
const AUTH_TEST_MS = 1_500;

export type SlackTeam = { teamId: string; source: 'admin' | 'auth.test' };

const stored = z.object({
  teamId: z.string().regex(TEAM_ID),
  source: z.enum(['admin', 'auth.test']),
});

export async function readSlackTeam(db: PrismaClient): Promise<SlackTeam | null> {
  const row = await db.appSetting.findUnique({
    where: { key: SLACK_TEAM_SETTING_KEY },
    select: { value: true },
  });
  const parsed = stored.safeParse(row?.value);
  return parsed.success ? parsed.data : null;
}

async function storeTeam(db: PrismaClient, team: SlackTeam, actorId: string | null): Promise<void> {
  await db.$transaction([
    db.appSetting.upsert({
      where: { key: SLACK_TEAM_SETTING_KEY },
      create: { key: SLACK_TEAM_SETTING_KEY, value: team },
      update: { value: team },
    }),
    db.auditEvent.create({
      data: {
        actorId,
        actorKind: actorId ? 'user' : 'system',
        action: 'slack.team_set',
        targetType: 'app_setting',
        targetId: SLACK_TEAM_SETTING_KEY,
        details: team,
      },
    }),
  ]);
}

/** Admin input: a workspace id, or empty to forget it (it is then learned again). */
export async function saveSlackTeamId(
  db: PrismaClient,
  raw: string,
  actorId: string | null = null,
): Promise<SlackTeam | null> {
  const teamId = raw.trim().toUpperCase();
  if (!teamId) {
    await db.$transaction([
      db.appSetting.deleteMany({ where: { key: SLACK_TEAM_SETTING_KEY } }),
      db.auditEvent.create({
        data: {
          actorId,
          actorKind: actorId ? 'user' : 'system',
          action: 'slack.team_cleared',
          targetType: 'app_setting',
          targetId: SLACK_TEAM_SETTING_KEY,
        },
      }),
    ]);
    return null;
  }
  if (!TEAM_ID.test(teamId)) {
    throw new AppError('request_invalid', 'Check the Slack workspace id.', {
      fields: {
        teamId: {
          code: 'slack_team_id_invalid',
          message: 'A Slack workspace id looks like T0123ABCD.',
        },
      },
    });
  }
  const team: SlackTeam = { teamId, source: 'admin' };
  await storeTeam(db, team, actorId);
  return team;
}

/**
 * The workspace interactions must come from, learning it from the bot token
 * when no admin set it. Null when it cannot be known: the caller refuses.
 */
export async function expectedSlackTeam(db: PrismaClient): Promise<string | null> {
  const known = await readSlackTeam(db);
  if (known) return known.teamId;
  if (!config().SLACK_BOT_TOKEN) return null;
  try {
    const res = await withTimeout(
      slackWebClient().auth.test(),
      AUTH_TEST_MS,
      'slack_auth_test_slow',
    );
    const teamId = typeof res.team_id === 'string' ? res.team_id : '';
    if (!TEAM_ID.test(teamId)) return null;
    await storeTeam(db, { teamId, source: 'auth.test' }, null);
    log.info({ teamId }, 'slack workspace learned from auth.test');
    return teamId;
  } catch (err) {
    log.warn({ err: String(err) }, 'slack auth.test failed; the workspace is unknown');
    return null;
  }
}
