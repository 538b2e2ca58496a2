import { IncomingWebhook } from '@slack/webhook';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { jobRegistry } from '@/lib/server/jobs/handlers';
import { createLogger } from '@/lib/server/logger';
import { type GuardOptions, guardOptionsFromConfig } from '@/lib/server/net/ssrf';
import { processJob } from '@/lib/server/queue/worker';
import { makeGuardedFetch } from '@/lib/server/net/guarded-fetch';
import { postTicketMessage, updateTicketMessage } from '@/lib/server/slack/messages';
import { saveGlobalSlackSettings, saveHostSlackSettings } from '@/lib/server/slack/settings';
import { decideTicket } from '@/lib/server/approvals/decide';
import { expireTicket } from '@/lib/server/approvals/expire';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import {
  approvalRequest,
  hostWithKey,
  post,
  transferContext,
  userWith,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { clearSlackEnv, SLACK_TEST_ENV } from './slack-env';

const { standIn } = await vi.hoisted(async () => {
  const { startSlackStandIn } = await import('./slack-env');
  return { standIn: await startSlackStandIn() };
});

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

const quiet = createLogger({ level: 'silent' });

// biome-ignore lint/suspicious/noExplicitAny: Block Kit is read loosely; the assertions say what matters
type Blocks = any[];

async function run(name: string, ticketId: string) {
  const prisma = await testDb();
  return processJob(
    { name, data: { ticketId }, id: `${name}.${ticketId}`, attemptsMade: 0 },
    { db: prisma, registry: jobRegistry, log: quiet },
  );
}

/** A pending ticket on `host` whose target carries an IBAN the host redacts. */
async function newTicket(key: string) {
  const body = approvalRequest(transferContext({ iban: 'DE89370400440532013000' }), {
    redact: ['$target.iban'],
  });
  const res = await post(key, body);
  expect(res.status).toBe(201);
  return { id: res.body.id as string, identity: body.context_identity as string };
}

const actions = (blocks: Blocks) => blocks.find((b) => b.type === 'actions').elements as Blocks;

describe('Slack messages through the real @slack/web-api and @slack/webhook clients', () => {
  let host: { id: string; key: string };
  let reviewer: { id: string };

  beforeEach(async () => {
    await truncateAll();
    standIn.reset();
    host = await hostWithKey('billing', { redactionPaths: ['$target.iban'] });
    reviewer = await userWith('rita@example.com', ['reviewer']);
  });
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
    await standIn.stop();
    clearSlackEnv();
  });

  it('a new ticket reaches chat.postMessage via the fan-out: bearer token, form body, redacted Block Kit, buttons carrying the identity', async () => {
    const prisma = await testDb();
    await saveGlobalSlackSettings(prisma, { channel: '#approvals' });
    const t = await newTicket(host.key);

    // approvals.created (written by intake) → the slack entry queues slack.post → the post.
    await run('approvals.created', t.id);
    const row = await prisma.outboxEvent.findUnique({ where: { dedupeKey: `slack.post.${t.id}` } });
    expect(row?.kind).toBe('slack.post');
    await run('slack.post', t.id);

    const calls = standIn.to('/api/');
    expect(calls).toHaveLength(1);
    const call = calls[0];
    expect(call.method).toBe('POST');
    expect(call.path).toBe('/api/chat.postMessage');
    expect(call.headers.authorization).toBe(`Bearer ${SLACK_TEST_ENV.SLACK_BOT_TOKEN}`);
    expect(call.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(call.body.channel).toBe('#approvals');
    expect(call.body.text).toBe('Approval needed: wire_transfer by billing-bot');
    // Never the redacted value, anywhere in what Slack receives (§9 redaction).
    expect(call.raw).not.toContain('DE89370400440532013000');

    const blocks = call.body.blocks as Blocks;
    expect(blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: 'Approval needed' },
    });
    const fields = blocks
      .find((b) => b.type === 'section' && b.fields)
      .fields.map((f: { text: string }) => f.text);
    expect(fields[0]).toBe('*Agent*\nbilling-bot');
    expect(fields[1]).toBe('*Tool*\nwire_transfer');
    expect(fields[2]).toBe('*Reason*\namount_over_threshold');
    expect(fields[3]).toMatch(/^\*Deadline\*\n<!date\^\d+\^/);
    const summary = blocks.find((b) => b.type === 'section' && b.text?.text.startsWith('```')).text
      .text;
    expect(summary).toContain('"iban":"[redacted]"');
    const [open, approve, reject] = actions(blocks);
    expect(open.url).toBe(`${SLACK_TEST_ENV.APP_URL}/approvals/${t.id}`);
    expect(approve.action_id).toBe('checkpoint_approve');
    expect(reject.action_id).toBe('checkpoint_reject');
    expect(JSON.parse(approve.value)).toEqual({ t: t.id, i: t.identity });
    expect(reject.value).toBe(approve.value);

    const stored = await prisma.approvalTicket.findUniqueOrThrow({ where: { id: t.id } });
    expect(stored.slackChannel).toBe('C0STANDIN');
    expect(stored.slackTs).toMatch(/^1764670000\.\d{6}$/);

    // Posted once: the job and the fan-out running again send nothing.
    await run('slack.post', t.id);
    await run('approvals.created', t.id);
    expect(standIn.to('/api/')).toHaveLength(1);
  });

  it('a decision on the web page updates the message in place: outcome and who decided, no buttons', async () => {
    const prisma = await testDb();
    await saveGlobalSlackSettings(prisma, { channel: '#approvals' });
    const t = await newTicket(host.key);
    await run('slack.post', t.id);
    await prisma.user.update({ where: { id: reviewer.id }, data: { name: 'Rita' } });
    await decideTicket({
      ticketId: t.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'reject',
      contextIdentity: t.identity,
      reason: 'Not this quarter',
    });
    // approvals.resolved (written with the decision) → slack.update.
    await run('approvals.resolved', t.id);
    await run('slack.update', t.id);

    const update = standIn.to('/api/chat.update');
    expect(update).toHaveLength(1);
    const posted = standIn.to('/api/chat.postMessage')[0];
    expect(update[0].headers.authorization).toBe(`Bearer ${SLACK_TEST_ENV.SLACK_BOT_TOKEN}`);
    expect(update[0].body.channel).toBe('C0STANDIN');
    expect(update[0].body.ts).toBe(
      (await prisma.approvalTicket.findUniqueOrThrow({ where: { id: t.id } })).slackTs,
    );
    expect(posted.body.channel).toBe('#approvals');
    expect(update[0].body.text).toBe('Approval rejected: wire_transfer by billing-bot');
    const blocks = update[0].body.blocks as Blocks;
    expect(blocks[0].text.text).toBe('Approval rejected');
    const outcome = blocks.find(
      (b) => b.type === 'section' && b.text?.text.startsWith(':no_entry:'),
    );
    expect(outcome.text.text).toMatch(
      /^:no_entry: \*Rejected\* by Rita <!date\^\d+\^.*>: Not this quarter$/,
    );
    expect(actions(blocks).map((e: { action_id: string }) => e.action_id)).toEqual([
      'checkpoint_open',
    ]);
  });

  it('expiry updates the message: no buttons, "Expired", the host denies', async () => {
    const prisma = await testDb();
    await saveGlobalSlackSettings(prisma, { channel: '#approvals' });
    const t = await newTicket(host.key);
    await run('slack.post', t.id);
    expect(await expireTicket(t.id, new Date(Date.now() + 48 * 3600_000))).toBe(true);
    await run('approvals.resolved', t.id);
    await run('slack.update', t.id);
    const [update] = standIn.to('/api/chat.update');
    const blocks = update.body.blocks as Blocks;
    expect(blocks[0].text.text).toBe('Approval expired');
    expect(JSON.stringify(blocks)).toContain(':hourglass: *Expired* without a decision');
    expect(actions(blocks)).toHaveLength(1);
  });

  it('Slack down: the post job throws (BullMQ retries with backoff), stores nothing, and the retry posts once', async () => {
    const prisma = await testDb();
    await saveGlobalSlackSettings(prisma, { channel: '#approvals' });
    const t = await newTicket(host.key);
    standIn.failNext(1, 503);
    await expect(run('slack.post', t.id)).rejects.toThrow();
    expect(
      (await prisma.approvalTicket.findUniqueOrThrow({ where: { id: t.id } })).slackTs,
    ).toBeNull();
    await run('slack.post', t.id);
    expect(standIn.to('/api/chat.postMessage')).toHaveLength(2);
    expect(
      (await prisma.approvalTicket.findUniqueOrThrow({ where: { id: t.id } })).slackTs,
    ).not.toBeNull();
    expect(jobRegistry['slack.post'].attempts).toBeGreaterThan(1);
    expect(jobRegistry['slack.post'].backoffMs).toBeGreaterThan(0);
  });

  it('a ticket decided before its post is posted decided, without buttons', async () => {
    const prisma = await testDb();
    await saveGlobalSlackSettings(prisma, { channel: '#approvals' });
    const t = await newTicket(host.key);
    await decideTicket({
      ticketId: t.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: t.identity,
    });
    expect(await postTicketMessage(prisma, t.id)).toBe('posted');
    const blocks = standIn.to('/api/chat.postMessage')[0].body.blocks as Blocks;
    expect(blocks[0].text.text).toBe('Approval approved');
    expect(actions(blocks)).toHaveLength(1);
    expect(standIn.to('/api/chat.update')).toHaveLength(0);
  });

  it('an incoming webhook (per host) gets JSON Block Kit without buttons, and the outcome as a follow-up post', async () => {
    const prisma = await testDb();
    await saveGlobalSlackSettings(prisma, { channel: '#approvals' });
    // http on loopback passes the SSRF guard only because the test sets its development flag.
    // Admins may only save https URLs; the stand-in is http, so it is stored directly.
    await expect(
      saveHostSlackSettings(prisma, host.id, {
        webhookUrl: `${standIn.url}/hooks/T000/B000/secret`,
      }),
    ).rejects.toMatchObject({ code: 'request_invalid' });
    await prisma.host.update({
      where: { id: host.id },
      data: { slackWebhookUrl: `${standIn.url}/hooks/T000/B000/secret` },
    });
    const t = await newTicket(host.key);
    await run('slack.post', t.id);

    const hooks = standIn.to('/hooks/');
    expect(hooks).toHaveLength(1);
    expect(standIn.to('/api/')).toHaveLength(0);
    expect(hooks[0].method).toBe('POST');
    expect(hooks[0].path).toBe('/hooks/T000/B000/secret');
    expect(hooks[0].headers['content-type']).toBe('application/json');
    expect(hooks[0].headers.authorization).toBeUndefined();
    expect(hooks[0].body.text).toBe('Approval needed: wire_transfer by billing-bot');
    const blocks = hooks[0].body.blocks as Blocks;
    expect(actions(blocks).map((e: { action_id: string }) => e.action_id)).toEqual([
      'checkpoint_open',
    ]);
    expect(hooks[0].raw).not.toContain('DE89370400440532013000');
    expect(
      (await prisma.approvalTicket.findUniqueOrThrow({ where: { id: t.id } })).slackChannel,
    ).toBe('incoming-webhook');

    await decideTicket({
      ticketId: t.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: t.identity,
    });
    expect(await updateTicketMessage(prisma, t.id)).toBe('followed_up');
    const follow = (standIn.to('/hooks/')[1].body.blocks as Blocks)[0].text.text as string;
    expect(follow).toMatch(/^:white_check_mark: \*Approved\* by rita@example.com /);
    expect(follow).toContain(`<${SLACK_TEST_ENV.APP_URL}/approvals/${t.id}|Open ticket>`);
  });

  it('incoming webhooks go through the SSRF guard: refused addresses and redirects send nothing onward', async () => {
    const guarded = (over: Partial<GuardOptions>) =>
      makeGuardedFetch(() => ({ ...guardOptionsFromConfig(), ...over }));
    // Loopback over plain http without the development flag.
    const noFlag = new IncomingWebhook(`${standIn.url}/hooks/x`, {
      fetch: guarded({ allowHttpLoopback: false }),
    });
    await expect(noFlag.send({ text: 'x' })).rejects.toThrow(/https/);
    // A name that resolves to a private address.
    const privateName = new IncomingWebhook('https://hooks.example.test/services/x', {
      fetch: guarded({ lookup: async () => [{ address: '10.1.2.3', family: 4 }] }),
    });
    await expect(privateName.send({ text: 'x' })).rejects.toThrow(/private/);
    expect(standIn.requests).toHaveLength(0);
    // A redirect is not followed: the send fails and the target sees nothing.
    const redirect = new IncomingWebhook(`${standIn.url}/redirect/x`, { fetch: guarded({}) });
    await expect(redirect.send({ text: 'x' })).rejects.toThrow(/302/);
    expect(standIn.requests.map((r) => r.path)).toEqual(['/redirect/x']);
  });

  it('no Slack destination: the jobs do nothing and send nothing', async () => {
    const prisma = await testDb();
    const t = await newTicket(host.key);
    expect(await postTicketMessage(prisma, t.id)).toBe('not_configured');
    expect(standIn.requests).toHaveLength(0);
  });
});
