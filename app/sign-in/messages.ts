/**
 * What the sign-in page says for each refusal. Auth.js reports SSO failures
 * as `?error=<type>`; ours (from the signIn callback) use our own codes.
 */
export function signInMessage(code: string, retryAfterSeconds?: number): string {
  switch (code) {
    case 'invalid_credentials':
    case 'CredentialsSignin':
      return 'Email or password is incorrect.';
    case 'rate_limited':
      return `Too many sign-in attempts. Try again in ${formatWait(retryAfterSeconds ?? 15 * 60)}.`;
    case 'sso_unknown_user':
      return 'Your single sign-on account is not linked to a Checkpoint user. Ask an admin to add you with the email address your identity provider uses.';
    case 'sso_account_disabled':
      return 'This account is disabled. Ask an admin to enable it.';
    case 'missing_fields':
      return 'Enter your email and password.';
    default:
      return 'Sign-in failed. Try again, or ask an admin if it keeps failing.';
  }
}

/** A wait in seconds under a minute, else in whole minutes (rounded up), never 0. */
export function formatWait(seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  return s < 60 ? `${s} s` : `${Math.ceil(s / 60)} min`;
}
