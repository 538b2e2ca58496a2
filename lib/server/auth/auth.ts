import 'server-only';
import NextAuth, { CredentialsSignin, type NextAuthConfig } from 'next-auth';
import Credentials from 'next-auth/providers/credentials';
import { authenticateWithPassword, clientIp } from '@/lib/server/auth/credentials';
import { linkOidcUser, userIdForOidcSubject } from '@/lib/server/auth/oidc';
import { relativeRedirect } from '@/lib/server/auth/redirects';
import { authSecret } from '@/lib/server/auth/secret';
import { config } from '@/lib/server/config';
import { moduleLogger } from '@/lib/server/logger';

/** A refused credentials sign-in; `code` reaches the sign-in page's action. */
export class SignInRefused extends CredentialsSignin {
  constructor(
    readonly code: 'invalid_credentials' | 'rate_limited',
    readonly retryAfterMinutes?: number,
  ) {
    super(code);
  }
}

export const OIDC_PROVIDER_ID = 'oidc';

/** Sessions last a working day; the user is re-read from the database on every request. */
const SESSION_MAX_AGE_S = 12 * 60 * 60;

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
          ip: clientIp(request.headers),
        });
        if (!result.ok) {
          throw new SignInRefused(
            result.code,
            result.code === 'rate_limited' ? result.retryAfterMinutes : undefined,
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
      async jwt({ token, user, account }) {
        if (account?.provider === OIDC_PROVIDER_ID) {
          // The token's subject is our user id, never the IdP's subject.
          const id = await userIdForOidcSubject(account.providerAccountId);
          if (!id) throw new Error('SSO identity is not linked to a user');
          return { sub: id, email: user?.email ?? null, name: user?.name ?? null };
        }
        if (account && user?.id) return { sub: user.id, email: user.email, name: user.name };
        return token;
      },
      session({ session, token }) {
        return {
          ...session,
          user: { id: token.sub ?? '', email: token.email ?? '', name: token.name ?? null },
        };
      },
      redirect({ url, baseUrl }) {
        return relativeRedirect(url, baseUrl);
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

export const { handlers, auth, signIn, signOut } = NextAuth(() => buildConfig());
