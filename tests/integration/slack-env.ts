import { SlackStandIn } from './slack-stand-in';

/**
 * Starts the stand-in and points the app's Slack configuration at it. Must
 * run before any app module is imported (config.ts parses the environment
 * once, and the logger reads it at import), hence `await vi.hoisted(...)`
 * in the test files.
 */
export const SLACK_TEST_ENV = {
  SLACK_BOT_TOKEN: 'xoxb-test-token-0000',
  SLACK_SIGNING_SECRET: 'test-signing-secret-0123456789',
  APP_URL: 'https://checkpoint.test',
  // The incoming-webhook stand-in is plain http on loopback: the SSRF
  // guard's development flag allows exactly that.
  WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'true',
};

export async function startSlackStandIn(): Promise<SlackStandIn> {
  const standIn = new SlackStandIn();
  await standIn.start();
  Object.assign(process.env, SLACK_TEST_ENV, { SLACK_API_URL: `${standIn.url}/api/` });
  return standIn;
}

export function clearSlackEnv(): void {
  for (const k of [...Object.keys(SLACK_TEST_ENV), 'SLACK_API_URL']) delete process.env[k];
}
