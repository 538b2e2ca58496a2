import { describe, expect, it } from 'vitest';
import {
  decodeButtonValue,
  encodeButtonValue,
  escapeMrkdwn,
  SUMMARY_MAX,
  type TicketForSlack,
  targetSummary,
  ticketMessage,
} from '@/lib/server/slack/blocks';

const ticket = (over: Partial<TicketForSlack> = {}): TicketForSlack => ({
  id: '6f1c2c2e-8d4b-4b1e-9a55-3f6a1c0d9e11',
  hostName: 'billing',
  contextIdentity: 'sha256:abc',
  interceptionPoint: 'pre_tool_call',
  agentId: 'billing-bot',
  agentLabel: null,
  toolName: 'wire_transfer',
  reason: 'amount_over_threshold',
  expiresAt: new Date('2026-12-02T11:00:00Z'),
  status: 'pending',
  context: { target: { to: 'ACME', iban: '[redacted]' } },
  ...over,
});

// biome-ignore lint/suspicious/noExplicitAny: Block Kit read loosely
const actionIds = (blocks: any[]) => blocks.at(-1).elements.map((e: any) => e.action_id);

describe('Slack Block Kit for tickets', () => {
  it('buttons only while pending and only with a bot token; the Open-ticket link always', () => {
    expect(
      actionIds(ticketMessage(ticket(), { appUrl: 'https://x', buttons: true }).blocks),
    ).toEqual(['checkpoint_open', 'checkpoint_approve', 'checkpoint_reject']);
    expect(
      actionIds(ticketMessage(ticket(), { appUrl: 'https://x', buttons: false }).blocks),
    ).toEqual(['checkpoint_open']);
    const decided = ticket({
      status: 'approved',
      decision: { by: 'Rita', at: new Date(), note: null },
    });
    expect(
      actionIds(ticketMessage(decided, { appUrl: 'https://x', buttons: true }).blocks),
    ).toEqual(['checkpoint_open']);
  });

  it('an identity too long for a button leaves no button (decide on the web page, never without the echo)', () => {
    const long = ticket({ contextIdentity: `x:${'a'.repeat(2100)}` });
    expect(actionIds(ticketMessage(long, { appUrl: 'https://x', buttons: true }).blocks)).toEqual([
      'checkpoint_open',
    ]);
  });

  it('button values round-trip the ticket id and the identity, null included; junk decodes to null', () => {
    for (const v of [
      { ticketId: 't', contextIdentity: 'sha256:abc' },
      { ticketId: 't', contextIdentity: null },
    ]) {
      expect(decodeButtonValue(encodeButtonValue(v))).toEqual(v);
    }
    expect(decodeButtonValue('{"t":1,"i":"x"}')).toBeNull();
    expect(decodeButtonValue('{"t":"x"}')).toBeNull();
    expect(decodeButtonValue('not json')).toBeNull();
    expect(decodeButtonValue(undefined)).toBeNull();
  });

  it('the summary is the stored target, truncated; mrkdwn control characters are escaped', () => {
    expect(targetSummary({ target: { a: 1 } })).toBe('{"a":1}');
    const long = targetSummary({ target: { s: 'x'.repeat(1000) } });
    expect(long).toHaveLength(SUMMARY_MAX);
    expect(long.endsWith('…')).toBe(true);
    expect(escapeMrkdwn('<!channel> & <@U1>')).toBe('&lt;!channel&gt; &amp; &lt;@U1&gt;');
    const msg = ticketMessage(ticket({ reason: '<!here> now' }), {
      appUrl: 'https://x',
      buttons: false,
    });
    expect(JSON.stringify(msg.blocks)).not.toContain('<!here>');
  });

  it('the Open-ticket link is APP_URL/approvals/{id}', () => {
    const msg = ticketMessage(ticket(), { appUrl: 'https://cp.example/', buttons: false });
    // biome-ignore lint/suspicious/noExplicitAny: Block Kit read loosely
    expect((msg.blocks.at(-1) as any).elements[0].url).toBe(
      'https://cp.example/approvals/6f1c2c2e-8d4b-4b1e-9a55-3f6a1c0d9e11',
    );
  });
});
