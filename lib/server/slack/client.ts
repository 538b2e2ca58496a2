import 'server-only';
import { type Logger as SlackLogger, LogLevel, WebClient } from '@slack/web-api';
import { IncomingWebhook } from '@slack/webhook';
import { config } from '../config';
import { moduleLogger } from '../logger';
import { guardedFetch } from '../net/guarded-fetch';

/**
 * The real Slack clients, configured once here. Both retry nothing
 * themselves: the slack.post / slack.update jobs own retries and backoff,
 * and the interactions endpoint must answer Slack within 3 s.
 */

const log = moduleLogger('slack');
const TIMEOUT_MS = 10_000;

export class SlackNotConfiguredError extends Error {
  readonly code = 'slack_not_configured';
}

// The clients log through their own interface; route it into pino, quietly.
const slackLogger: SlackLogger = {
  debug: () => {},
  info: () => {},
  warn: (...m: unknown[]) => log.warn({ client: 'slack' }, m.map(String).join(' ')),
  error: (...m: unknown[]) => log.error({ client: 'slack' }, m.map(String).join(' ')),
  setLevel: () => {},
  getLevel: () => LogLevel.WARN,
  setName: () => {},
};

/** The Web API client for the configured bot token (SLACK_API_URL points it at a stand-in in tests). */
export function slackWebClient(): WebClient {
  const cfg = config();
  if (!cfg.SLACK_BOT_TOKEN) {
    throw new SlackNotConfiguredError('SLACK_BOT_TOKEN is not set.');
  }
  return new WebClient(cfg.SLACK_BOT_TOKEN, {
    slackApiUrl: cfg.SLACK_API_URL,
    retryConfig: { retries: 0 },
    timeout: TIMEOUT_MS,
    rejectRateLimitedCalls: true,
    // Only method names are ever derived into URLs; never an absolute URL.
    allowAbsoluteUrls: false,
    logger: slackLogger,
  });
}

/**
 * An incoming-webhook client. The URL is admin input, so every request goes
 * through the SSRF guard (checked at connect time, no redirects).
 */
export function slackIncomingWebhook(url: string): IncomingWebhook {
  return new IncomingWebhook(url, {
    fetch: guardedFetch,
    timeout: TIMEOUT_MS,
    retryConfig: { retries: 0 },
  });
}
