import 'server-only';

/**
 * Block Kit for ticket messages. Pure functions over what the ticket stores:
 * the context is the one kept after the host's redaction (§9), so nothing
 * unredacted can reach Slack from here, and the summary is truncated on top.
 */

export const APPROVE_ACTION = 'checkpoint_approve';
export const REJECT_ACTION = 'checkpoint_reject';
export const REJECT_MODAL = 'checkpoint_reject_reason';
export const REASON_BLOCK = 'reason';
export const REASON_INPUT = 'reason_input';

/** Slack caps a button's value at 2000 characters. */
const MAX_BUTTON_VALUE = 2000;
export const SUMMARY_MAX = 280;

export interface TicketForSlack {
  id: string;
  hostName: string;
  contextIdentity: string | null;
  interceptionPoint: string;
  agentId: string;
  agentLabel: string | null;
  toolName: string | null;
  reason: string | null;
  expiresAt: Date;
  status: 'pending' | 'approved' | 'rejected' | 'expired';
  /** The stored (already redacted) AgentContext. */
  context: unknown;
  decision?: { by: string | null; at: Date; note: string | null } | null;
}

/** What the buttons carry: the ticket and the identity shown in this message (§9 echo). */
export interface ButtonValue {
  ticketId: string;
  contextIdentity: string | null;
}

export function encodeButtonValue(v: ButtonValue): string {
  return JSON.stringify({ t: v.ticketId, i: v.contextIdentity });
}

export function decodeButtonValue(raw: unknown): ButtonValue | null {
  if (typeof raw !== 'string' || raw.length > MAX_BUTTON_VALUE) return null;
  try {
    const v = JSON.parse(raw) as { t?: unknown; i?: unknown };
    if (typeof v.t !== 'string' || !(typeof v.i === 'string' || v.i === null)) return null;
    return { ticketId: v.t, contextIdentity: v.i };
  } catch {
    return null;
  }
}

/** Slack mrkdwn treats &, < and > as control characters. */
export function escapeMrkdwn(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** A one-glance summary of the (redacted) target: compact JSON, truncated. */
export function targetSummary(context: unknown, max = SUMMARY_MAX): string {
  const target = (context as { target?: unknown } | null)?.target;
  if (target === undefined) return '(no target)';
  let text: string;
  try {
    text = JSON.stringify(target) ?? String(target);
  } catch {
    text = '(unreadable target)';
  }
  return truncate(text, max);
}

function slackDate(d: Date): string {
  const unix = Math.floor(d.getTime() / 1000);
  return `<!date^${unix}^{date_short_pretty} {time}|${d.toISOString()}>`;
}

export function ticketUrl(appUrl: string, ticketId: string): string {
  return `${appUrl.replace(/\/+$/, '')}/approvals/${encodeURIComponent(ticketId)}`;
}

/**
 * The top-level `text` (notifications, screen readers) is mrkdwn too: a tool
 * named `<!channel>` would ping the channel. Clipped first, then escaped, so
 * a cut never splits an entity.
 */
export function fallbackText(t: TicketForSlack): string {
  const what = escapeMrkdwn(truncate(t.toolName ?? t.interceptionPoint, 120));
  const agent = escapeMrkdwn(truncate(t.agentLabel ?? t.agentId, 120));
  return `Approval ${statusWord(t)}: ${what} by ${agent}`;
}

function statusWord(t: TicketForSlack): string {
  if (t.status === 'pending') return 'needed';
  return t.status;
}

function fieldsBlock(t: TicketForSlack) {
  const agent = t.agentLabel ? `${t.agentLabel} (${t.agentId})` : t.agentId;
  const field = (label: string, value: string) => ({
    type: 'mrkdwn',
    text: `*${label}*\n${escapeMrkdwn(truncate(value, 200))}`,
  });
  return {
    type: 'section',
    fields: [
      field('Agent', agent),
      field(t.toolName ? 'Tool' : 'Interception point', t.toolName ?? t.interceptionPoint),
      field('Reason', t.reason ?? '(none given)'),
      { type: 'mrkdwn', text: `*Deadline*\n${slackDate(t.expiresAt)}` },
    ],
  };
}

/** The outcome line: who decided and when, or that the deadline passed. */
export function outcomeText(t: TicketForSlack): string {
  const at = t.decision ? slackDate(t.decision.at) : '';
  const by = escapeMrkdwn(t.decision?.by ?? 'unknown');
  switch (t.status) {
    case 'approved':
      return `:white_check_mark: *Approved* by ${by} ${at}`;
    case 'rejected': {
      const note = t.decision?.note ? `: ${escapeMrkdwn(truncate(t.decision.note, 300))}` : '';
      return `:no_entry: *Rejected* by ${by} ${at}${note}`;
    }
    case 'expired':
      return ':hourglass: *Expired* without a decision; the host denies (fail closed).';
    default:
      return ':hourglass_flowing_sand: Waiting for a reviewer.';
  }
}

/**
 * The message for a ticket in its current state. Buttons only while pending,
 * only with a bot token, and only when the identity fits in a button (else
 * the reviewer decides on the web page: nothing is decided without the echo).
 */
export function ticketMessage(
  t: TicketForSlack,
  opts: { appUrl: string; buttons: boolean },
): { text: string; blocks: object[] } {
  const header = t.status === 'pending' ? 'Approval needed' : `Approval ${t.status}`;
  const link = {
    type: 'button',
    action_id: 'checkpoint_open',
    text: { type: 'plain_text', text: 'Open ticket' },
    url: ticketUrl(opts.appUrl, t.id),
  };
  const value = encodeButtonValue({ ticketId: t.id, contextIdentity: t.contextIdentity });
  const decide =
    opts.buttons && t.status === 'pending' && value.length <= MAX_BUTTON_VALUE
      ? [
          {
            type: 'button',
            action_id: APPROVE_ACTION,
            style: 'primary',
            text: { type: 'plain_text', text: 'Approve' },
            value,
          },
          {
            type: 'button',
            action_id: REJECT_ACTION,
            style: 'danger',
            text: { type: 'plain_text', text: 'Reject' },
            value,
          },
        ]
      : [];
  const blocks: object[] = [
    { type: 'header', text: { type: 'plain_text', text: header } },
    {
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `Host *${escapeMrkdwn(truncate(t.hostName, 100))}*` }],
    },
    fieldsBlock(t),
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        // Backticks inside the summary would end the code span early.
        text: `\`\`\`${escapeMrkdwn(targetSummary(t.context)).replaceAll('`', "'")}\`\`\``,
      },
    },
  ];
  if (t.status !== 'pending') {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: outcomeText(t) } });
  }
  blocks.push({ type: 'actions', block_id: `ticket.${t.id}`, elements: [link, ...decide] });
  return { text: fallbackText(t), blocks };
}

/** The follow-up post for incoming webhooks, which cannot edit what they posted. */
export function outcomeFollowUp(
  t: TicketForSlack,
  appUrl: string,
): { text: string; blocks: object[] } {
  const what = escapeMrkdwn(t.toolName ?? t.interceptionPoint);
  const agent = escapeMrkdwn(t.agentLabel ?? t.agentId);
  return {
    text: fallbackText(t),
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `${outcomeText(t)}\n${what} by ${agent} · <${ticketUrl(appUrl, t.id)}|Open ticket>`,
        },
      },
    ],
  };
}

/** The modal asking for a reject reason (the host receives it as the deny's message). */
export function rejectModal(
  value: ButtonValue,
  t: Pick<TicketForSlack, 'toolName' | 'interceptionPoint'>,
) {
  return {
    type: 'modal',
    callback_id: REJECT_MODAL,
    private_metadata: encodeButtonValue(value),
    title: { type: 'plain_text', text: 'Reject approval' },
    submit: { type: 'plain_text', text: 'Reject' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `Rejecting *${escapeMrkdwn(truncate(t.toolName ?? t.interceptionPoint, 100))}*. The agent receives your reason.`,
        },
      },
      {
        type: 'input',
        block_id: REASON_BLOCK,
        label: { type: 'plain_text', text: 'Reason' },
        element: {
          type: 'plain_text_input',
          action_id: REASON_INPUT,
          multiline: true,
          min_length: 1,
          max_length: 500,
        },
      },
    ],
  };
}
