import { getToken } from 'next-auth/jwt';
import { type NextRequest, NextResponse } from 'next/server';
import { PATH_HEADER } from '@/lib/server/auth/redirects';
import { authSecret } from '@/lib/server/auth/secret';
import { config as appConfig } from '@/lib/server/config';
import { errorResponse } from '@/lib/server/http/api-error';
import {
  API_POLICY,
  baseSecurityHeaders,
  cameOverHttps,
  newNonce,
  originOf,
  pagePolicy,
} from '@/lib/server/http/security-headers';

/**
 * Early gate (Next 16 proxy, Node runtime): page requests without a valid
 * session go to sign-in, API requests get 401 JSON. Only the session's
 * presence is checked here; pages, actions and routes check the user and
 * roles themselves and remain authoritative. Every answer passing through
 * here gets the security headers (lib/server/http/security-headers.ts),
 * pages a Content-Security-Policy with a fresh nonce.
 */

/** API paths that authenticate themselves (or need none). */
const OPEN_API = [
  /^\/api\/health\/?$/,
  /^\/api\/ready\/?$/,
  /^\/api\/metrics\/?$/,
  /^\/api\/(auth|v1|slack)(\/|$)/,
];
// The host API reference is public, like the document it renders (/api/v1/openapi.json);
// so are the signing keys (JWKS), for anyone verifying a receipt or tree head.
const OPEN_PAGES = [
  /^\/sign-in\/?$/,
  /^\/docs\/api(\/redoc\.js)?\/?$/,
  /^\/\.well-known\/jwks\.json$/,
];

/** Routes that send a policy of their own (the Redoc renderer needs a blob: worker). */
const OWN_POLICY = [/^\/docs\/api(\/redoc\.js)?\/?$/];

const SESSION_COOKIE = 'authjs.session-token';

async function hasSession(req: NextRequest): Promise<boolean> {
  // Auth.js prefixes the cookie with __Secure- when served over https.
  const secure = req.cookies.getAll().some((c) => c.name.startsWith(`__Secure-${SESSION_COOKIE}`));
  const plain = req.cookies.getAll().some((c) => c.name.startsWith(SESSION_COOKIE));
  if (!secure && !plain) return false;
  const token = await getToken({
    req,
    secret: authSecret(),
    secureCookie: secure,
    // A bearer header is an API key, never a session: read only the cookie.
    cookieName: secure ? `__Secure-${SESSION_COOKIE}` : SESSION_COOKIE,
  }).catch(() => null);
  return Boolean(token?.sub);
}

export async function proxy(req: NextRequest): Promise<Response> {
  const { pathname } = req.nextUrl;
  const isApi = pathname === '/api' || pathname.startsWith('/api/');
  const cfg = appConfig();
  const https = cameOverHttps(req.nextUrl.protocol, req.headers.get('x-forwarded-proto'));
  // Next reads the nonce from the request's policy and stamps its own scripts with it.
  const policy = isApi
    ? API_POLICY
    : pagePolicy({
        nonce: newNonce(),
        dev: cfg.NODE_ENV === 'development',
        https,
        formTargets: [originOf(cfg.OIDC_ISSUER)].filter((o): o is string => o !== null),
      });
  const res = await gate(req, isApi, policy);
  for (const [name, value] of Object.entries(
    baseSecurityHeaders(https || cfg.APP_URL?.startsWith('https:') === true),
  )) {
    res.headers.set(name, value);
  }
  if (!OWN_POLICY.some((re) => re.test(pathname))) {
    res.headers.set('Content-Security-Policy', policy);
  }
  return res;
}

async function gate(req: NextRequest, isApi: boolean, policy: string): Promise<Response> {
  const { pathname, search } = req.nextUrl;
  const open = (isApi ? OPEN_API : OPEN_PAGES).some((re) => re.test(pathname));

  if (!open && !(await hasSession(req))) {
    if (isApi) return errorResponse(401, 'unauthenticated', 'Sign in or send a valid API key.');
    const signIn = new URL('/sign-in', req.url);
    signIn.searchParams.set('next', `${pathname}${search}`);
    return NextResponse.redirect(signIn);
  }

  const headers = new Headers(req.headers);
  headers.set(PATH_HEADER, `${pathname}${search}`);
  // Replaces whatever the client sent under that name: the nonce is ours alone.
  headers.set('Content-Security-Policy', policy);
  // The "You don't have access" page answers 403, not 200.
  if (pathname === '/forbidden') {
    return NextResponse.rewrite(req.nextUrl, { status: 403, request: { headers } });
  }
  return NextResponse.next({ request: { headers } });
}

export const config = {
  // Everything but static assets and Next internals.
  matcher: ['/((?!_next/static|_next/image|favicon\\.ico|favicon\\.svg|robots\\.txt).*)'],
};
