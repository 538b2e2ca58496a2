import 'server-only';
import { z } from 'zod';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { config } from '../config';
import { AppError } from '../http/api-error';
import { assertWebhookUrl, type GuardOptions, guardOptionsFromConfig } from '../net/ssrf';
import { WebhookError } from '../webhooks/errors';

/**
 * Where a ticket's Slack message goes. The bot token and the signing secret
 * are secrets and come from the environment (config.ts), never the database;
 * the channel and the incoming-webhook URL are set by admins on
 * /settings/slack: globally (AppSetting `slack`) and per host (Host
 * `slackChannel` / `slackWebhookUrl`, which win over the global ones).
 */

export const SLACK_SETTING_KEY = 'slack';

export type GlobalSlackSettings = { channel: string | null; webhookUrl: string | null };

export type SlackDestination =
  /** Bot token + channel: buttons, and the message is updated in place. */
  | { kind: 'bot'; channel: string }
  /** Incoming webhook: no buttons, no updates; the outcome is a follow-up post. */
  | { kind: 'webhook'; url: string };

/** Stored in ApprovalTicket.slackChannel for webhook posts (there is no channel id or ts). */
export const WEBHOOK_CHANNEL_MARK = 'incoming-webhook';

// A channel id (C…/G…) or a #name as Slack accepts them in chat.postMessage.
const CHANNEL = /^(#[a-z0-9][a-z0-9._-]{0,79}|[CGD][A-Z0-9]{6,20})$/;

const stored = z.object({
  channel: z.string().nullable().catch(null),
  webhookUrl: z.string().nullable().catch(null),
});

export async function readGlobalSlackSettings(db: PrismaClient): Promise<GlobalSlackSettings> {
  const row = await db.appSetting.findUnique({
    where: { key: SLACK_SETTING_KEY },
    select: { value: true },
  });
  const parsed = stored.safeParse(row?.value ?? {});
  return parsed.success
    ? { channel: parsed.data.channel ?? null, webhookUrl: parsed.data.webhookUrl ?? null }
    : { channel: null, webhookUrl: null };
}

/**
 * The destination for a host's tickets, or null when Slack is not set up
 * for it. A host's own setting wins; a channel needs the bot token, so
 * without it a channel is ignored in favour of a webhook URL.
 */
export function resolveDestination(
  host: { slackChannel: string | null; slackWebhookUrl: string | null },
  global: GlobalSlackSettings,
  botToken = config().SLACK_BOT_TOKEN,
): SlackDestination | null {
  const pick = (channel: string | null, url: string | null): SlackDestination | null => {
    if (channel && botToken) return { kind: 'bot', channel };
    if (url) return { kind: 'webhook', url };
    return null;
  };
  return pick(host.slackChannel, host.slackWebhookUrl) ?? pick(global.channel, global.webhookUrl);
}

/**
 * What an admin is told after saving a destination (issue 14): where new
 * tickets now go, or why they go nowhere (a channel without SLACK_BOT_TOKEN
 * posts nothing; it used to say "Saved" all the same).
 */
export function savedDestinationMessage(
  dest: SlackDestination | null,
  channelSaved: boolean,
  botToken = config().SLACK_BOT_TOKEN,
): { posting: boolean; message: string } {
  if (dest?.kind === 'bot')
    return { posting: true, message: `Saved. New tickets are posted to ${dest.channel}.` };
  if (dest?.kind === 'webhook')
    return {
      posting: true,
      message: 'Saved. New tickets are posted through the incoming webhook.',
    };
  if (channelSaved && !botToken) {
    return {
      posting: false,
      message:
        'Saved, but nothing will be posted: a channel needs SLACK_BOT_TOKEN, which is not set. Set it, or add an incoming webhook URL.',
    };
  }
  return {
    posting: false,
    message: 'Saved. No destination is set, so nothing is posted to Slack.',
  };
}

export async function destinationForHost(
  db: PrismaClient,
  hostId: string,
): Promise<SlackDestination | null> {
  const [host, global] = await Promise.all([
    db.host.findUnique({
      where: { id: hostId },
      select: { slackChannel: true, slackWebhookUrl: true },
    }),
    readGlobalSlackSettings(db),
  ]);
  return host ? resolveDestination(host, global) : null;
}

/** Validates admin input; empty means "not set". Throws AppError 400 with per-field codes. */
export function parseSlackTarget(input: { channel?: string; webhookUrl?: string }): {
  channel: string | null;
  webhookUrl: string | null;
} {
  const channel = input.channel?.trim() || null;
  const webhookUrl = input.webhookUrl?.trim() || null;
  const fields: Record<string, { code: string; message: string }> = {};
  if (channel && !CHANNEL.test(channel)) {
    fields.channel = {
      code: 'slack_channel_invalid',
      message: 'Use a channel id (C0123ABCD) or #name in lower case.',
    };
  }
  if (webhookUrl && !isHttpsUrl(webhookUrl)) {
    fields.webhookUrl = {
      code: 'slack_webhook_url_invalid',
      message: 'An incoming-webhook URL is an https:// URL (https://hooks.slack.com/services/…).',
    };
  }
  if (Object.keys(fields).length > 0) {
    throw new AppError('request_invalid', 'Check the highlighted Slack settings.', { fields });
  }
  return { channel, webhookUrl };
}

function isHttpsUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'https:' && v.length <= 500 && !u.username && !u.password;
  } catch {
    return false;
  }
}

/** Admin form input: a blank webhook URL keeps the stored one unless `clearWebhook` (it is never shown back). */
export interface SlackTargetInput {
  channel?: string;
  webhookUrl?: string;
  clearWebhook?: boolean;
}

/**
 * A new webhook URL must pass the SSRF guard now, not only at send time: an
 * address the app may not reach (private, link-local, metadata, …) is
 * refused on the form instead of failing every post later. The guard runs
 * again at connect time (DNS may change).
 */
async function checkReachable(url: string, guard: GuardOptions): Promise<void> {
  try {
    await assertWebhookUrl(url, guard);
  } catch (err) {
    if (!(err instanceof WebhookError)) throw err;
    const message = `Checkpoint may not send to this URL: ${err.message}`;
    throw new AppError('request_invalid', 'Check the highlighted Slack settings.', {
      fields: { webhookUrl: { code: err.code, message } },
    });
  }
}

async function merge(input: SlackTargetInput, currentUrl: string | null, guard?: GuardOptions) {
  const parsed = parseSlackTarget(input);
  if (parsed.webhookUrl && !input.clearWebhook) {
    await checkReachable(parsed.webhookUrl, guard ?? guardOptionsFromConfig());
  }
  const webhookUrl = input.clearWebhook ? null : (parsed.webhookUrl ?? currentUrl);
  return { channel: parsed.channel, webhookUrl };
}

/** Audit without the URL itself: whether each part is set. */
function auditDetails(scope: string, v: { channel: string | null; webhookUrl: string | null }) {
  return { scope, channel: v.channel, webhookUrlSet: Boolean(v.webhookUrl) };
}

export async function saveGlobalSlackSettings(
  db: PrismaClient,
  input: SlackTargetInput,
  actorId: string | null = null,
  guard?: GuardOptions,
): Promise<GlobalSlackSettings> {
  const current = await readGlobalSlackSettings(db);
  const value = await merge(input, current.webhookUrl, guard);
  await db.$transaction([
    db.appSetting.upsert({
      where: { key: SLACK_SETTING_KEY },
      create: { key: SLACK_SETTING_KEY, value },
      update: { value },
    }),
    db.auditEvent.create({
      data: {
        actorId,
        actorKind: actorId ? 'user' : 'system',
        action: 'slack.settings_changed',
        targetType: 'app_setting',
        targetId: SLACK_SETTING_KEY,
        details: auditDetails('global', value),
      },
    }),
  ]);
  return value;
}

export async function saveHostSlackSettings(
  db: PrismaClient,
  hostId: string,
  input: SlackTargetInput,
  actorId: string | null = null,
  guard?: GuardOptions,
): Promise<void> {
  const host = await db.host.findFirst({
    where: { id: hostId, archivedAt: null },
    select: { slackWebhookUrl: true },
  });
  if (!host) throw new AppError('not_found', 'The host was not found (or is archived).');
  const value = await merge(input, host.slackWebhookUrl, guard);
  await db.$transaction([
    db.host.update({
      where: { id: hostId },
      data: { slackChannel: value.channel, slackWebhookUrl: value.webhookUrl },
    }),
    db.auditEvent.create({
      data: {
        actorId,
        actorKind: actorId ? 'user' : 'system',
        action: 'slack.settings_changed',
        targetType: 'host',
        targetId: hostId,
        details: auditDetails('host', value),
      },
    }),
  ]);
}

export interface HostSlackRow {
  id: string;
  name: string;
  builtIn: boolean;
  slackChannel: string | null;
  webhookUrlMasked: string | null;
  destination: SlackDestination | null;
}

/** The settings page's host list: each active host, its own settings and where its tickets go. */
export async function listHostSlackSettings(db: PrismaClient): Promise<HostSlackRow[]> {
  const [hosts, global] = await Promise.all([
    db.host.findMany({
      where: { archivedAt: null },
      orderBy: { name: 'asc' },
      select: { id: true, name: true, builtIn: true, slackChannel: true, slackWebhookUrl: true },
    }),
    readGlobalSlackSettings(db),
  ]);
  return hosts.map((h) => ({
    id: h.id,
    name: h.name,
    builtIn: h.builtIn,
    slackChannel: h.slackChannel,
    webhookUrlMasked: h.slackWebhookUrl ? maskWebhookUrl(h.slackWebhookUrl) : null,
    destination: resolveDestination(h, global),
  }));
}

/** For display: the origin and a hint of the path, never the whole secret URL. */
export function maskWebhookUrl(url: string): string {
  try {
    const u = new URL(url);
    const tail = u.pathname.slice(-4);
    return `${u.origin}/…${tail}`;
  } catch {
    return '…';
  }
}
