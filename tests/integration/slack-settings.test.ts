import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '@/lib/server/http/api-error';
import { type GuardOptions, guardOptionsFromConfig } from '@/lib/server/net/ssrf';
import {
  readGlobalSlackSettings,
  resolveDestination,
  saveGlobalSlackSettings,
  saveHostSlackSettings,
  savedDestinationMessage,
} from '@/lib/server/slack/settings';
import { hostWithKey } from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

/**
 * Issue item 10e: an incoming-webhook URL the SSRF guard refuses is refused
 * when an admin saves it, with the guard's code on the field, and nothing is
 * stored (it used to be accepted and fail only at send time).
 */

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/** Names resolve from this table: no DNS leaves the machine. */
const guard = (): GuardOptions =>
  guardOptionsFromConfig({
    allowHttpLoopback: false,
    lookup: async (host) => {
      const table: Record<string, string> = {
        'hooks.slack.com': '34.226.36.50',
        'hooks.internal.test': '10.20.30.40',
        'metadata.internal.test': '169.254.169.254',
      };
      const address = table[host];
      if (!address) throw new Error('ENOTFOUND');
      return [{ address, family: 4 }];
    },
  });

async function refused(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe('request_invalid');
  return (
    (err as AppError).details as { fields: Record<string, { code: string; message: string }> }
  ).fields.webhookUrl;
}

describe('Slack settings: incoming-webhook URLs pass the SSRF guard at save', () => {
  beforeEach(truncateAll);
  afterAll(closeTestDb);

  it('private, metadata, link-local and loopback addresses are refused on the field; nothing is stored', async () => {
    const prisma = await testDb();
    const cases: [string, string, RegExp][] = [
      ['https://10.1.2.3/services/T/B/x', 'webhook_url_blocked', /private address \(10\.1\.2\.3\)/],
      ['https://hooks.internal.test/services/x', 'webhook_url_blocked', /private address/],
      ['https://metadata.internal.test/latest', 'webhook_url_blocked', /metadata address/],
      ['https://169.254.1.1/hooks', 'webhook_url_blocked', /link-local/],
      ['https://127.0.0.1:8080/hooks', 'webhook_url_blocked', /loopback/],
      ['https://[::1]/hooks', 'webhook_url_blocked', /loopback/],
      ['https://nowhere.invalid/hooks', 'webhook_dns_failed', /could not be resolved/],
    ];
    for (const [url, code, message] of cases) {
      const field = await refused(
        saveGlobalSlackSettings(prisma, { webhookUrl: url }, null, guard()),
      );
      expect(field.code, url).toBe(code);
      expect(field.message, url).toMatch(/^Checkpoint may not send to this URL: /);
      expect(field.message, url).toMatch(message);
    }
    expect(await readGlobalSlackSettings(prisma)).toEqual({ channel: null, webhookUrl: null });
    expect(await prisma.auditEvent.count()).toBe(0);
  });

  it('per host too; a public Slack URL is saved', async () => {
    const prisma = await testDb();
    const host = await hostWithKey('billing');
    const field = await refused(
      saveHostSlackSettings(
        prisma,
        host.id,
        { webhookUrl: 'https://hooks.internal.test/x' },
        null,
        guard(),
      ),
    );
    expect(field.code).toBe('webhook_url_blocked');
    const row = () =>
      prisma.host.findUniqueOrThrow({ where: { id: host.id }, select: { slackWebhookUrl: true } });
    expect((await row()).slackWebhookUrl).toBeNull();

    const ok = 'https://hooks.slack.com/services/T000/B000/secret';
    await saveHostSlackSettings(prisma, host.id, { webhookUrl: ok }, null, guard());
    expect((await row()).slackWebhookUrl).toBe(ok);
    await saveGlobalSlackSettings(prisma, { webhookUrl: ok }, null, guard());
    expect((await readGlobalSlackSettings(prisma)).webhookUrl).toBe(ok);
    // A blank URL keeps the stored one without checking anything again.
    await saveGlobalSlackSettings(prisma, { channel: '#approvals' }, null, guard());
    expect(await readGlobalSlackSettings(prisma)).toEqual({
      channel: '#approvals',
      webhookUrl: ok,
    });
  });
});

describe('after saving, the admin is told where tickets go (issue 14)', () => {
  it('a channel without a bot token posts nothing, and says so', () => {
    const said = savedDestinationMessage(
      resolveDestination(
        { slackChannel: null, slackWebhookUrl: null },
        {
          channel: '#approvals',
          webhookUrl: null,
        },
        '',
      ),
      true,
      '',
    );
    expect(said.posting).toBe(false);
    expect(said.message).toContain('SLACK_BOT_TOKEN');
  });
  it('with a token the channel is named; a webhook is the webhook; nothing is nothing', () => {
    const global = { channel: '#approvals', webhookUrl: null };
    const none = { slackChannel: null, slackWebhookUrl: null };
    expect(
      savedDestinationMessage(resolveDestination(none, global, 'xoxb-1'), true, 'xoxb-1'),
    ).toEqual({
      posting: true,
      message: 'Saved. New tickets are posted to #approvals.',
    });
    const hook = { channel: null, webhookUrl: 'https://hooks.slack.com/services/T/B/x' };
    expect(savedDestinationMessage(resolveDestination(none, hook, ''), false).posting).toBe(true);
    expect(
      savedDestinationMessage(
        resolveDestination(none, { channel: null, webhookUrl: null }, ''),
        false,
        '',
      ),
    ).toEqual({
      posting: false,
      message: 'Saved. No destination is set, so nothing is posted to Slack.',
    });
  });
});
