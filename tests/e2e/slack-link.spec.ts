import { expect, test } from '@playwright/test';
import { E2E_ADMIN, signIn } from './fixtures';

/**
 * The Slack pages in a browser. This app runs without a Slack bot token,
 * so a link request is refused with a clear message; the confirmation
 * itself (the bot's DM and the member's press) is covered against a Slack
 * stand-in in tests/integration/slack-link.test.ts.
 */

test('profile: the Slack card says "not linked" and a request without a bot is refused clearly', async ({
  page,
}) => {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/profile');
  await expect(page).toHaveURL(/\/profile$/);
  const card = page.getByTestId('slack-link');
  await expect(card.getByTestId('slack-link-status')).toHaveText(
    'Not linked: Slack buttons pressed by you are refused.',
  );
  await card.getByLabel('Slack member ID').fill('U0ADMIN01');
  await card.getByRole('button', { name: 'Send a confirmation in Slack' }).click();
  const alert = card.getByRole('alert');
  await expect(alert).toHaveAttribute('data-code', 'slack_link_unavailable');
  await expect(alert).toContainText('Slack linking is not set up here');
  await expect(card.getByTestId('slack-link-status')).toHaveText(/^Not linked/);
});

test('settings: links list, workspace id, and a private webhook URL refused at save', async ({
  page,
}) => {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/settings/slack');
  await expect(page).toHaveURL(/\/settings\/slack$/);
  await expect(page.getByText('No Slack links yet.')).toBeVisible();

  const team = page.getByRole('form', { name: 'Slack workspace' });
  await team.getByLabel('Workspace id').fill('not a team');
  await team.getByRole('button', { name: 'Save' }).click();
  await expect(team.getByText('A Slack workspace id looks like T0123ABCD.')).toBeVisible();
  await team.getByLabel('Workspace id').fill('T0E2E0001');
  await team.getByRole('button', { name: 'Save' }).click();
  await expect(team.getByRole('status')).toHaveText('Only interactions from T0E2E0001 count.');
  await expect(page.getByTestId('slack-team-source')).toHaveText('Set by an admin.');

  const dest = page.getByRole('form', { name: 'Default Slack destination' });
  await dest.getByLabel('Incoming-webhook URL').fill('https://10.9.8.7/services/T/B/x');
  await dest.getByRole('button', { name: 'Save' }).click();
  await expect(
    dest.getByText(/^Checkpoint may not send to this URL: .*private address/),
  ).toBeVisible();
  await page.reload();
  await expect(page.getByText('Used for every host without its own setting.')).toContainText(
    'Not posted to Slack',
  );
});
