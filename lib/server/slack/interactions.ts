import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { DecisionError, decideTicket } from '../approvals/decide';
import { config } from '../config';
import { db } from '../db';
import { ERROR_CODES } from '../http/error-codes';
import { uuidOrNil } from '../http/uuid';
import { moduleLogger } from '../logger';
import { slackUpdateDedupeKey } from '../jobs/definitions';
import { withTimeout } from '../queue/connection';
import { enqueue } from '../queue/outbox';
import {
  APPROVE_ACTION,
  type ButtonValue,
  decodeButtonValue,
  escapeMrkdwn,
  REASON_BLOCK,
  REASON_INPUT,
  REJECT_ACTION,
  REJECT_MODAL,
  rejectModal,
} from './blocks';
import { slackWebClient } from './client';
import { isLinkAction, linkPress } from './link-press';
import { updateTicketMessage } from './messages';
import { ephemeral } from './respond';
import { slackReviewer } from './reviewer';
import { expectedSlackTeam } from './team';
import { appUrl } from './ticket-view';
import { verifySlackSignature } from './verify';

/**
 * POST /api/slack/interactions. The order is the point: the v0 signature is
 * verified over the raw body before anything is parsed or read from the
 * database; then the workspace (team.id) must be ours (team.ts); then the
 * Slack user is mapped to a reviewer with a confirmed link; then the decision
 * goes through decideTicket, which applies the same §9 echo (the identity
 * the button carried) and exactly-once rules as the web page. Edits exist
 * on the web page only: a button approves as shown, or opens a modal that
 * asks for the reason a reject needs.
 */

const log = moduleLogger('slack');
const INLINE_UPDATE_MS = 1_500;

export interface SlackAnswer {
  status: number;
  body: unknown;
}

interface Payload {
  type?: string;
  team?: { id?: string } | null;
  user?: { id?: string; team_id?: string };
  trigger_id?: string;
  response_url?: string;
  actions?: { action_id?: string; value?: string }[];
  view?: {
    callback_id?: string;
    private_metadata?: string;
    state?: { values?: Record<string, Record<string, { value?: string | null }>> };
  };
}

const ok = (body: unknown = null): SlackAnswer => ({ status: 200, body });

export async function handleSlackInteraction(
  rawBody: string,
  headers: Headers,
  nowMs = Date.now(),
): Promise<SlackAnswer> {
  const check = verifySlackSignature({
    secret: config().SLACK_SIGNING_SECRET,
    timestamp: headers.get('x-slack-request-timestamp'),
    signature: headers.get('x-slack-signature'),
    rawBody,
    nowMs,
  });
  if (!check.ok) {
    log.warn({ code: check.code }, 'slack interaction refused');
    return {
      status: 401,
      // The table's own words: "not configured" and "stale" are not "invalid".
      body: { error: { code: check.code, message: ERROR_CODES[check.code].when } },
    };
  }
  let payload: Payload;
  try {
    payload = JSON.parse(new URLSearchParams(rawBody).get('payload') ?? '') as Payload;
    if (typeof payload !== 'object' || payload === null) throw new Error('not an object');
  } catch {
    return {
      status: 400,
      body: {
        error: {
          code: 'slack_payload_invalid',
          message: 'Expected a form field `payload` with JSON.',
        },
      },
    };
  }
  const prisma = await db();
  const foreign = await foreignWorkspace(prisma, payload);
  if (foreign) return foreign;
  if (payload.type === 'block_actions') return blockAction(prisma, payload);
  if (payload.type === 'view_submission' && payload.view?.callback_id === REJECT_MODAL) {
    return rejectSubmission(prisma, payload);
  }
  // Anything else (the Open-ticket link button, view closes) needs only the ack.
  return ok();
}

/**
 * One signing secret can sign for every workspace the app is installed in:
 * a click from any workspace but ours is refused before anything is read.
 */
async function foreignWorkspace(prisma: PrismaClient, p: Payload): Promise<SlackAnswer | null> {
  const team = p.team?.id ?? p.user?.team_id ?? null;
  const expected = await expectedSlackTeam(prisma);
  if (expected && team === expected) return null;
  log.warn({ team, expected }, 'slack interaction from another workspace refused');
  const text = expected
    ? 'This Slack workspace is not the one Checkpoint is connected to; nothing was done.'
    : 'Checkpoint does not know which Slack workspace it is connected to (an admin sets it on the Slack settings page); nothing was done.';
  if (p.type === 'view_submission' && p.view?.callback_id === REJECT_MODAL) {
    return ok({ response_action: 'errors', errors: { [REASON_BLOCK]: text } });
  }
  return ok(await ephemeral(p.response_url, text));
}

async function blockAction(prisma: PrismaClient, p: Payload): Promise<SlackAnswer> {
  const action = p.actions?.[0];
  if (action && isLinkAction(action.action_id)) return ok(await linkPress(prisma, p, action));
  if (action?.action_id !== APPROVE_ACTION && action?.action_id !== REJECT_ACTION) return ok();
  const value = decodeButtonValue(action.value);
  if (!value)
    return ok(await ephemeral(p.response_url, 'This button is not valid; nothing was decided.'));
  const who = await slackReviewer(prisma, p.user?.id ?? '', `${appUrl()}/profile`);
  if (!who.ok) return ok(await ephemeral(p.response_url, who.text));

  if (action.action_id === REJECT_ACTION) return openRejectModal(prisma, p, value);
  try {
    await decideTicket({
      ticketId: value.ticketId,
      actor: { kind: 'slack', userId: who.userId },
      outcome: 'approve',
      contextIdentity: value.contextIdentity,
    });
  } catch (err) {
    return ok(await ephemeral(p.response_url, await refusal(prisma, err, value.ticketId)));
  }
  log.info({ ticketId: value.ticketId, userId: who.userId }, 'approved from slack');
  await refreshMessage(prisma, value.ticketId);
  return ok();
}

/** A reject needs a reason (the agent receives it), so the button asks for one. */
async function openRejectModal(
  prisma: PrismaClient,
  p: Payload,
  value: ButtonValue,
): Promise<SlackAnswer> {
  const t = await prisma.approvalTicket.findUnique({
    where: { id: uuidOrNil(value.ticketId) },
    select: { status: true, contextIdentity: true, toolName: true, interceptionPoint: true },
  });
  if (!t) return ok(await ephemeral(p.response_url, 'This ticket no longer exists.'));
  if (t.status !== 'pending') {
    await refreshMessage(prisma, value.ticketId);
    return ok(await ephemeral(p.response_url, await settledText(prisma, value.ticketId)));
  }
  if (t.contextIdentity !== value.contextIdentity) {
    return ok(await ephemeral(p.response_url, MISMATCH));
  }
  try {
    await slackWebClient().views.open({
      trigger_id: p.trigger_id ?? '',
      view: rejectModal(value, t) as never,
    });
  } catch (err) {
    log.warn({ err: String(err) }, 'slack views.open failed');
    const link = `${appUrl()}/approvals/${value.ticketId}`;
    return ok(
      await ephemeral(
        p.response_url,
        `Could not open the reject dialog; reject on the web page: ${link}`,
      ),
    );
  }
  return ok();
}

async function rejectSubmission(prisma: PrismaClient, p: Payload): Promise<SlackAnswer> {
  const fail = (text: string) =>
    ok({ response_action: 'errors', errors: { [REASON_BLOCK]: text } });
  const value = decodeButtonValue(p.view?.private_metadata);
  if (!value) return fail('This dialog is not valid; nothing was decided.');
  const who = await slackReviewer(prisma, p.user?.id ?? '', `${appUrl()}/profile`);
  if (!who.ok) return fail(who.text);
  const reason = p.view?.state?.values?.[REASON_BLOCK]?.[REASON_INPUT]?.value?.trim() ?? '';
  if (!reason) return fail('A reject needs a reason: the agent receives it.');
  try {
    await decideTicket({
      ticketId: value.ticketId,
      actor: { kind: 'slack', userId: who.userId },
      outcome: 'reject',
      contextIdentity: value.contextIdentity,
      reason,
    });
  } catch (err) {
    return fail(await refusal(prisma, err, value.ticketId));
  }
  log.info({ ticketId: value.ticketId, userId: who.userId }, 'rejected from slack');
  await refreshMessage(prisma, value.ticketId);
  return ok({ response_action: 'clear' });
}

const MISMATCH =
  'This message shows an older version of the ticket (its context identity differs); nothing was decided. Open the ticket to review what changed.';

/** Words for a refused decision; a settled ticket also gets its message brought up to date. */
async function refusal(prisma: PrismaClient, err: unknown, ticketId: string): Promise<string> {
  if (!(err instanceof DecisionError)) {
    log.error({ err: String(err), ticketId }, 'slack decision failed');
    return 'Something went wrong; nothing was decided. Try again or use the web page.';
  }
  switch (err.code) {
    case 'already_decided':
    case 'expired':
      await refreshMessage(prisma, ticketId);
      return settledText(prisma, ticketId);
    case 'identity_stale':
      return MISMATCH;
    case 'not_found':
      return 'This ticket no longer exists.';
    default:
      return `${err.message} Nothing was decided.`;
  }
}

/** "already decided by X at T" for a settled ticket (exactly once: the first decision stands). */
async function settledText(prisma: PrismaClient, ticketId: string): Promise<string> {
  const d = await prisma.decision.findUnique({
    where: { ticketId: uuidOrNil(ticketId) },
    select: {
      outcome: true,
      decidedByKind: true,
      createdAt: true,
      user: { select: { email: true, name: true } },
    },
  });
  if (!d) return 'This ticket is no longer pending; nothing was decided.';
  const at = d.createdAt.toISOString();
  if (d.outcome === 'unresolved') return `This ticket expired at ${at}; nothing was decided.`;
  const who = escapeMrkdwn(d.user ? (d.user.name ?? d.user.email) : d.decidedByKind);
  return `Already decided (${d.outcome}) by ${who} at ${at}; your press changed nothing.`;
}

/**
 * Brings the message up to date now (the reviewer sees the result at once);
 * if Slack fails or is slow (Slack wants our answer within 3 s), the
 * slack.update job does it with backoff. Both running is harmless: the same
 * content is written twice.
 */
async function refreshMessage(prisma: PrismaClient, ticketId: string): Promise<void> {
  try {
    await withTimeout(
      updateTicketMessage(prisma, ticketId, log),
      INLINE_UPDATE_MS,
      'slack_update_slow',
    );
  } catch (err) {
    log.warn({ ticketId, err: String(err) }, 'slack message update failed; queued for retry');
    await enqueue(prisma, {
      kind: 'slack.update',
      payload: { ticketId },
      dedupeKey: slackUpdateDedupeKey(ticketId),
    }).catch((e: unknown) =>
      log.error({ ticketId, err: String(e) }, 'could not queue slack.update'),
    );
  }
}
