import 'server-only';
import { config } from '../config';
import { moduleLogger } from '../logger';

const log = moduleLogger('slack');

export type EphemeralMessage = {
  response_type: 'ephemeral';
  replace_original: false;
  text: string;
};

/**
 * `response_url` arrives inside a signed payload, but it is still only ever
 * followed to Slack's own hooks host (or to the configured API's origin,
 * which is a local stand-in in tests): never to an arbitrary address.
 */
export function responseUrlAllowed(raw: unknown): raw is string {
  if (typeof raw !== 'string') return false;
  try {
    const u = new URL(raw);
    if (u.protocol === 'https:' && u.hostname === 'hooks.slack.com') return true;
    const api = new URL(config().SLACK_API_URL);
    return api.hostname !== 'slack.com' && u.origin === api.origin;
  } catch {
    return false;
  }
}

export type ReplacementMessage = { replace_original: true; text: string };

/**
 * Tells one Slack user something only they see. Sent to `response_url` and
 * also returned as the HTTP answer; a failed send is logged, not retried
 * (the user can press again).
 */
export async function ephemeral(responseUrl: unknown, text: string): Promise<EphemeralMessage> {
  const message: EphemeralMessage = { response_type: 'ephemeral', replace_original: false, text };
  await respond(responseUrl, message);
  return message;
}

/** Replaces the message whose button was pressed (its buttons go with it). */
export async function replaceOriginal(
  responseUrl: unknown,
  text: string,
): Promise<ReplacementMessage> {
  const message: ReplacementMessage = { replace_original: true, text };
  await respond(responseUrl, message);
  return message;
}

async function respond(responseUrl: unknown, message: object): Promise<void> {
  if (!responseUrlAllowed(responseUrl)) return;
  try {
    const res = await fetch(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message),
      redirect: 'error',
      signal: AbortSignal.timeout(3_000),
    });
    if (!res.ok) log.warn({ status: res.status }, 'slack response_url refused the message');
  } catch (err) {
    log.warn({ err: String(err) }, 'slack response_url unreachable');
  }
}
