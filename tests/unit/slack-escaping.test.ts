import { describe, expect, it } from 'vitest';
import {
  fallbackText,
  outcomeFollowUp,
  outcomeText,
  rejectModal,
  type TicketForSlack,
  ticketMessage,
} from '@/lib/server/slack/blocks';
import { linkRequestMessage } from '@/lib/server/slack/link-blocks';

/**
 * Issue item 9: text from hosts, agents and users reaches Slack only with
 * `&`, `<` and `>` escaped wherever Slack reads mrkdwn (the top-level `text`
 * and every mrkdwn object), so `<!channel>` pings nobody and
 * `<https://evil|Click>` is no link. plain_text is shown as is.
 */

const HOSTILE = ['<!channel>', '<https://evil|Click>', '&amp;', '<@U123>'];
const hostile = HOSTILE.join(' ');
const ESCAPED = ['&lt;!channel&gt;', '&lt;https://evil|Click&gt;', '&amp;amp;', '&lt;@U123&gt;'];

const ticket = (over: Partial<TicketForSlack> = {}): TicketForSlack => ({
  id: '6f1c2c2e-8d4b-4b1e-9a55-3f6a1c0d9e11',
  hostName: `host ${hostile}`,
  contextIdentity: 'sha256:abc',
  interceptionPoint: `point ${hostile}`,
  agentId: `agent ${hostile}`,
  agentLabel: `label ${hostile}`,
  toolName: `tool ${hostile}`,
  reason: `reason ${hostile}`,
  expiresAt: new Date('2026-12-02T11:00:00Z'),
  status: 'pending',
  context: { target: { note: hostile } },
  ...over,
});

const decided = (status: 'approved' | 'rejected' | 'expired') =>
  ticket({ status, decision: { by: `by ${hostile}`, at: new Date(), note: `note ${hostile}` } });

/** Every string Slack reads as mrkdwn: the top-level text and each `{type: 'mrkdwn'}` object's text. */
function mrkdwnTexts(message: { text?: string; blocks?: object[] } | object): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.type === 'mrkdwn' && typeof o.text === 'string') out.push(o.text);
      Object.values(o).forEach(walk);
    }
  };
  const text = (message as { text?: unknown }).text;
  if (typeof text === 'string') out.push(text);
  walk(message);
  return out;
}

/** The app's own markup (dates, the ticket link) is the only `<…>` allowed through. */
const OWN_MARKUP =
  /<!date\^\d+\^\{date_short_pretty\} \{time\}\|[^<>]+>|<https:\/\/app\.test\/approvals\/[0-9a-f-]+\|Open ticket>/g;

function assertEscaped(texts: string[]) {
  expect(texts.length).toBeGreaterThan(0);
  const all = texts.join('\n');
  for (const h of HOSTILE) expect(all).not.toContain(h.startsWith('&') ? `${h} ` : h);
  for (const t of texts) {
    const rest = t.replace(OWN_MARKUP, '');
    expect(rest, t).not.toMatch(/[<>]/);
    // Every & starts an entity we wrote: nothing reaches Slack as its own entity.
    expect(rest, t).not.toMatch(/&(?!amp;|lt;|gt;)/);
  }
  // At least one hostile value made it through, escaped (the walk is not vacuous).
  expect(ESCAPED.some((e) => all.includes(e))).toBe(true);
}

describe('Slack messages escape host, agent and user text (item 9)', () => {
  it('fallbackText: the tool (or interception point) and the agent are escaped', () => {
    const text = fallbackText(ticket());
    expect(text).toBe(`Approval needed: tool ${ESCAPED.join(' ')} by label ${ESCAPED.join(' ')}`);
    expect(fallbackText(ticket({ toolName: null, agentLabel: null }))).toBe(
      `Approval needed: point ${ESCAPED.join(' ')} by agent ${ESCAPED.join(' ')}`,
    );
  });

  it('a long hostile name is clipped before escaping: no entity is cut in half', () => {
    const text = fallbackText(ticket({ toolName: '<'.repeat(500), agentLabel: '&'.repeat(500) }));
    expect(text).not.toMatch(/[<>]/);
    expect(text).not.toMatch(/&(?!amp;|lt;|gt;)/);
  });

  const builders: [string, () => object][] = [
    [
      'ticketMessage, pending, with buttons',
      () => ticketMessage(ticket(), { appUrl: 'https://app.test', buttons: true }),
    ],
    [
      'ticketMessage, pending, no buttons',
      () =>
        ticketMessage(ticket({ toolName: null, agentLabel: null }), {
          appUrl: 'https://app.test',
          buttons: false,
        }),
    ],
    ...(['approved', 'rejected', 'expired'] as const).map((s): [string, () => object] => [
      `ticketMessage, ${s}`,
      () => ticketMessage(decided(s), { appUrl: 'https://app.test', buttons: true }),
    ]),
    ...(['approved', 'rejected'] as const).map((s): [string, () => object] => [
      `outcomeFollowUp, ${s}`,
      () => outcomeFollowUp(decided(s), 'https://app.test'),
    ]),
    ['outcomeText', () => ({ text: outcomeText(decided('rejected')) })],
    ['rejectModal', () => rejectModal({ ticketId: 't', contextIdentity: null }, ticket())],
    [
      'linkRequestMessage',
      () =>
        linkRequestMessage({
          email: `a${hostile}@example.com`,
          token: 'tok',
          expiresAt: new Date(Date.now() + 900_000),
        }),
    ],
  ];
  it.each(builders)('%s: every mrkdwn text is escaped', (_name, build) => {
    assertEscaped(mrkdwnTexts(build()));
  });

  it('the walk finds the mrkdwn texts of a ticket message (top-level text, context, fields, summary)', () => {
    const texts = mrkdwnTexts(
      ticketMessage(ticket(), { appUrl: 'https://app.test', buttons: true }),
    );
    // text, host context, 4 fields, the summary code block.
    expect(texts).toHaveLength(7);
  });
});
