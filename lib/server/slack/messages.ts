import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { Logger } from '../logger';
import { outcomeFollowUp, ticketMessage } from './blocks';
import { slackIncomingWebhook, slackWebClient } from './client';
import { destinationForHost, WEBHOOK_CHANNEL_MARK } from './settings';
import { appUrl, loadSlackTicket } from './ticket-view';

export type PostResult =
  | 'posted'
  | 'already_posted'
  | 'not_configured'
  | 'ticket_gone'
  | 'decided_by_resolver';
export type UpdateResult = 'updated' | 'followed_up' | 'not_posted' | 'pending' | 'ticket_gone';

/**
 * Posts a ticket's message once. "Once" is the stored slackChannel/slackTs:
 * a job that runs again after they were stored does nothing. The one window
 * left (Slack accepted the post, the process died before the store) repeats
 * the post on retry: a duplicate message is better than a ticket nobody sees.
 *
 * The message shows the ticket as it is now, so a ticket decided by a person
 * before its post is posted decided; one the resolver decided is not posted. If it is decided between the read and the store,
 * the update job may already have run and found nothing posted, so the
 * re-read after the store updates the message itself.
 */
export async function postTicketMessage(
  db: PrismaClient,
  ticketId: string,
  log?: Logger,
): Promise<PostResult> {
  const t = await loadSlackTicket(db, ticketId);
  if (!t) return 'ticket_gone';
  if (t.slackChannel) return 'already_posted';
  const phase = await db.approvalTicket.findUnique({
    where: { id: ticketId },
    select: { resolverUntil: true, decision: { select: { decidedByKind: true } } },
  });
  // Issue 6: Slack sees only tickets that reach people. One the resolver
  // decided never does; one still with it is retried (the job backs off).
  if (phase?.decision?.decidedByKind === 'resolver') return 'decided_by_resolver';
  // (resolver-phase.ts's withResolver, inlined: that module imports the outbox,
  // which imports the job registry that loads this module.)
  const until = phase?.resolverUntil;
  if (t.status === 'pending' && until && until.getTime() > Date.now()) {
    throw new Error('ticket is still with the resolver; posted after hand-over');
  }
  const dest = await destinationForHost(db, t.hostId);
  if (!dest) return 'not_configured';

  if (dest.kind === 'bot') {
    const msg = ticketMessage(t, { appUrl: appUrl(), buttons: true });
    const res = await slackWebClient().chat.postMessage({
      channel: dest.channel,
      text: msg.text,
      blocks: msg.blocks as never,
      unfurl_links: false,
      unfurl_media: false,
    });
    if (!res.channel || !res.ts) throw new Error('chat.postMessage answered without channel/ts');
    await db.approvalTicket.updateMany({
      where: { id: t.id, slackChannel: null },
      data: { slackChannel: res.channel, slackTs: res.ts },
    });
  } else {
    const msg = ticketMessage(t, { appUrl: appUrl(), buttons: false });
    await slackIncomingWebhook(dest.url).send({ text: msg.text, blocks: msg.blocks as never });
    await db.approvalTicket.updateMany({
      where: { id: t.id, slackChannel: null },
      data: { slackChannel: WEBHOOK_CHANNEL_MARK },
    });
  }
  log?.info({ ticketId, via: dest.kind }, 'slack message posted');

  const now = await db.approvalTicket.findUnique({
    where: { id: t.id },
    select: { status: true },
  });
  if (now && now.status !== t.status) await updateTicketMessage(db, t.id, log);
  return 'posted';
}

/**
 * Shows a settled ticket's outcome: edits the bot's message in place
 * (without buttons), or, for an incoming webhook, which cannot edit, posts
 * a follow-up line with the outcome.
 */
export async function updateTicketMessage(
  db: PrismaClient,
  ticketId: string,
  log?: Logger,
): Promise<UpdateResult> {
  const t = await loadSlackTicket(db, ticketId);
  if (!t) return 'ticket_gone';
  if (t.status === 'pending') return 'pending';
  if (!t.slackChannel) return 'not_posted';

  if (t.slackChannel !== WEBHOOK_CHANNEL_MARK && t.slackTs) {
    const msg = ticketMessage(t, { appUrl: appUrl(), buttons: false });
    await slackWebClient().chat.update({
      channel: t.slackChannel,
      ts: t.slackTs,
      text: msg.text,
      blocks: msg.blocks as never,
    });
    log?.info({ ticketId, status: t.status }, 'slack message updated');
    return 'updated';
  }
  const dest = await destinationForHost(db, t.hostId);
  if (dest?.kind !== 'webhook') {
    // The admin moved this host off its webhook since the post: nowhere to follow up.
    log?.warn({ ticketId }, 'slack follow-up skipped: the host no longer has an incoming webhook');
    return 'not_posted';
  }
  const msg = outcomeFollowUp(t, appUrl());
  await slackIncomingWebhook(dest.url).send({ text: msg.text, blocks: msg.blocks as never });
  log?.info({ ticketId, status: t.status }, 'slack follow-up posted');
  return 'followed_up';
}
