import 'server-only';
import NextAuth, { CredentialsSignin, type NextAuthConfig } from 'next-auth';
import Credentials from 'next-auth/providers/credentials';
import { authenticateWithPassword } from '@/lib/server/auth/credentials';
import { linkOidcUser, userIdForOidcSubject } from '@/lib/server/auth/oidc';
import { relativeRedirect } from '@/lib/server/auth/redirects';
import { authSecret } from '@/lib/server/auth/secret';
import {
  createUserSession,
  endSession,
  SESSION_MAX_AGE_S,
  SIGN_IN_METHODS,
  type SignInMethod,
} from '@/lib/server/auth/user-sessions';
import { config } from '@/lib/server/config';
import { clientAddress } from '@/lib/server/http/client-address';
import { moduleLogger } from '@/lib/server/logger';
import { headers } from 'next/headers';

/** A refused credentials sign-in; `code` reaches the sign-in page's action. */
export class SignInRefused extends CredentialsSignin {
  constructor(
    readonly code: 'invalid_credentials' | 'rate_limited',
    readonly retryAfterSeconds?: number,
  ) {
    super(code);
  }
}

export const OIDC_PROVIDER_ID = 'oidc';

function buildConfig(): NextAuthConfig {
  const cfg = config();
  const log = moduleLogger('auth');
  const providers: NextAuthConfig['providers'] = [
    Credentials({
      credentials: { email: { type: 'email' }, password: { type: 'password' } },
      async authorize(credentials, request) {
        const result = await authenticateWithPassword({
          email: String(credentials.email ?? ''),
          password: String(credentials.password ?? ''),
          ip: clientAddress(request.headers),
        });
        if (!result.ok) {
          throw new SignInRefused(
            result.code,
            result.code === 'rate_limited' ? result.retryAfterSeconds : undefined,
          );
        }
        return { id: result.user.id, email: result.user.email, name: result.user.name };
      },
    }),
  ];
  if (cfg.OIDC_ISSUER && cfg.OIDC_CLIENT_ID && cfg.OIDC_CLIENT_SECRET) {
    providers.push({
      id: OIDC_PROVIDER_ID,
      name: cfg.OIDC_NAME,
      type: 'oidc',
      issuer: cfg.OIDC_ISSUER,
      clientId: cfg.OIDC_CLIENT_ID,
      clientSecret: cfg.OIDC_CLIENT_SECRET,
    });
  }

  return {
    secret: authSecret(),
    trustHost: true,
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_S },
    pages: { signIn: '/sign-in', error: '/sign-in' },
    providers,
    callbacks: {
      async signIn({ account, profile }) {
        if (account?.provider !== OIDC_PROVIDER_ID) return true;
        const linked = await linkOidcUser({
          subject: account.providerAccountId,
          email: profile?.email,
          // Some providers send the claim as the string "true".
          emailVerified: [true, 'true'].includes(profile?.email_verified as boolean | string),
        });
        return linked.ok ? true : `/sign-in?error=${linked.code}`;
      },
      // At sign-in (an `account` is present) a server-side session opens and
      // its id goes into the token as `sid`; the user is then re-read with
      // that session on every request (session.ts), and ending the row ends
      // the session whatever the cookie says.
      async jwt({ token, user, account }) {
        if (account?.provider === OIDC_PROVIDER_ID) {
          // The token's subject is our user id, never the IdP's subject.
          const id = await userIdForOidcSubject(account.providerAccountId);
          if (!id) throw new Error('SSO identity is not linked to a user');
          const sid = await openSession(id, SIGN_IN_METHODS.sso);
          return { sub: id, sid, email: user?.email ?? null, name: user?.name ?? null };
        }
        if (account && user?.id) {
          const sid = await openSession(user.id, SIGN_IN_METHODS.password);
          return { sub: user.id, sid, email: user.email, name: user.name };
        }
        return token;
      },
      session({ session, token }) {
        return {
          ...session,
          sessionId: typeof token.sid === 'string' ? token.sid : '',
          user: { id: token.sub ?? '', email: token.email ?? '', name: token.name ?? null },
        };
      },
      redirect({ url, baseUrl }) {
        return relativeRedirect(url, baseUrl);
      },
    },
    events: {
      // Sign-out ends the session on the server too: a copy of the cookie
      // kept from before no longer signs anyone in.
      async signOut(message) {
        const sid = 'token' in message ? message.token?.sid : undefined;
        if (typeof sid === 'string') await endSession(sid);
      },
    },
    logger: {
      error(error) {
        // Refused sign-ins are expected; they are counted in SignInAttempt.
        if (error instanceof CredentialsSignin) return;
        const cause = (error as { cause?: { err?: unknown } }).cause?.err;
        log.error({ err: cause ?? error, type: (error as { type?: string }).type }, 'auth error');
      },
      warn(code) {
        log.warn({ code }, 'auth warning');
      },
      debug() {},
    },
  };
}

async function openSession(userId: string, method: SignInMethod): Promise<string> {
  // The browser's own description, kept to tell a user's sessions apart.
  let userAgent: string | null = null;
  try {
    userAgent = (await headers()).get('user-agent');
  } catch {
    // Outside a request: no user agent to keep.
  }
  return createUserSession({ userId, method, userAgent });
}

export const { handlers, auth, signIn, signOut } = NextAuth(() => buildConfig());
