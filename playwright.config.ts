import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { BASE_URL, E2E_ADMIN, MOCK_OIDC, PORT } from './tests/e2e/fixtures';

/**
 * End-to-end tests in Debian's Chromium against the production build,
 * started the way users start it (`node scripts/start.mjs`), on a fresh
 * embedded database. `localhost`, not 127.0.0.1: Auth.js builds absolute
 * URLs with `localhost`, so cookies set for 127.0.0.1 would go missing.
 */

// Workers load this file again: the directory is made once, by the runner,
// and handed down through the environment.
process.env.CHECKPOINT_E2E_DATA_DIR ??= mkdtempSync(path.join(tmpdir(), 'checkpoint-e2e-'));

export default defineConfig({
  testDir: 'tests/e2e',
  globalTeardown: './tests/e2e/global-teardown.ts',
  outputDir: 'test-results',
  fullyParallel: false,
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    baseURL: BASE_URL,
    browserName: 'chromium',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      // Without the networking flags Chromium floods the closed network.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  webServer: [
    {
      // A stand-in identity provider, so that SSO sign-in runs for real.
      command: 'node tests/e2e/mock-oidc-provider.mjs',
      url: `${MOCK_OIDC.issuer}/.well-known/openid-configuration`,
      timeout: 10_000,
      reuseExistingServer: false,
      env: {
        MOCK_OIDC_PORT: String(MOCK_OIDC.port),
        MOCK_OIDC_CLIENT_ID: MOCK_OIDC.clientId,
        MOCK_OIDC_CLIENT_SECRET: MOCK_OIDC.clientSecret,
      },
    },
    {
      command: 'node scripts/start.mjs',
      url: `${BASE_URL}/api/health`,
      // A first start may build the app (~1 min on 2 cores) and create the database.
      timeout: 300_000,
      reuseExistingServer: false,
      stdout: 'pipe',
      stderr: 'pipe',
      env: {
        PORT: String(PORT),
        DATA_DIR: process.env.CHECKPOINT_E2E_DATA_DIR,
        // Explicit, so a TREE_HEAD_FILE in the caller's shell never receives test heads.
        TREE_HEAD_FILE: path.join(process.env.CHECKPOINT_E2E_DATA_DIR, 'tree-heads.jsonl'),
        // Empty means unset (config.ts): always the embedded database here.
        DATABASE_URL: '',
        // A Redis database of its own, so that no other app's worker takes these jobs.
        REDIS_URL: 'redis://127.0.0.1:6379/14',
        ADMIN_EMAIL: E2E_ADMIN.email,
        ADMIN_PASSWORD: E2E_ADMIN.password,
        AUTH_SECRET: '',
        OIDC_ISSUER: MOCK_OIDC.issuer,
        OIDC_CLIENT_ID: MOCK_OIDC.clientId,
        OIDC_CLIENT_SECRET: MOCK_OIDC.clientSecret,
        OIDC_NAME: MOCK_OIDC.name,
        LOG_LEVEL: 'warn',
        // Webhook receivers in tests/e2e/webhooks.spec.ts listen on loopback over http.
        WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'true',
      },
    },
  ],
});
