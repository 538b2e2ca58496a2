import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { decideTicket } from '@/lib/server/approvals/decide';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { postTicketMessage, updateTicketMessage } from '@/lib/server/slack/messages';
import { saveGlobalSlackSettings } from '@/lib/server/slack/settings';
import {
  approvalRequest,
  hostWithKey,
  post,
  transferContext,
  userWith,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { clearSlackEnv } from './slack-env';

const { standIn } = await vi.hoisted(async () => {
  const { startSlackStandIn } = await import('./slack-env');
  return { standIn: await startSlackStandIn() };
});

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/**
 * Issue item 9, end to end: a ticket whose tool, agent, host and reviewer
 * carry Slack markup goes through the real @slack/web-api client to the
 * stand-in, and what Slack would receive has that markup escaped.
 */

const RAW = ['<!channel>', '<https://evil|Click>', '<@U123>'];

describe('Slack receives host and agent text escaped', () => {
  beforeEach(async () => {
    await truncateAll();
    standIn.reset();
  });
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
    await standIn.stop();
    clearSlackEnv();
  });

  it('chat.postMessage and chat.update carry no raw mention, link or entity from a ticket', async () => {
    const prisma = await testDb();
    const host = await hostWithKey('billing');
    const reviewer = await userWith('rita@example.com', ['reviewer']);
    await prisma.user.update({ where: { id: reviewer.id }, data: { name: 'Rita <!here>' } });
    await saveGlobalSlackSettings(prisma, { channel: '#approvals' });
    const body = approvalRequest(transferContext({ memo: '<!channel> &amp;' }));
    const res = await post(host.key, body);
    expect(res.status).toBe(201);
    // What the host and agent named them (stored as received).
    await prisma.approvalTicket.update({
      where: { id: res.body.id },
      data: { toolName: '<!channel> &amp;', agentLabel: '<https://evil|Click> <@U123>' },
    });
    await prisma.host.update({ where: { id: host.id }, data: { name: 'billing <!everyone>' } });

    expect(await postTicketMessage(prisma, res.body.id)).toBe('posted');
    const [sent] = standIn.to('/api/chat.postMessage');
    expect(sent.body.text).toBe(
      'Approval needed: &lt;!channel&gt; &amp;amp; by &lt;https://evil|Click&gt; &lt;@U123&gt;',
    );
    const blocks = JSON.stringify(sent.body.blocks);
    for (const raw of [...RAW, '<!everyone>']) {
      expect(sent.raw).not.toContain(encodeURIComponent(raw));
      expect(blocks).not.toContain(raw);
    }
    expect(blocks).toContain('Host *billing &lt;!everyone&gt;*');

    await decideTicket({
      ticketId: res.body.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: body.context_identity as string,
    });
    expect(await updateTicketMessage(prisma, res.body.id)).toBe('updated');
    const [update] = standIn.to('/api/chat.update');
    expect(update.body.text).toBe(String(sent.body.text).replace('needed', 'approved'));
    const updated = JSON.stringify(update.body.blocks);
    expect(updated).toContain('*Approved* by Rita &lt;!here&gt;');
    expect(updated).not.toContain('<!here>');
  });
});
