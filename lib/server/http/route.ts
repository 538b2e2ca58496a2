import 'server-only';
import { unstable_rethrow } from 'next/navigation';
import type { NextRequest } from 'next/server';
import type { z } from 'zod';
import type { Role } from '@/lib/generated/prisma/enums';
import { hasAnyRole } from '@/lib/server/auth/roles';
import { getCurrentUser, type SessionUser } from '@/lib/server/auth/session';
import { moduleLogger } from '@/lib/server/logger';
import { AppError, forbidden, unauthenticated } from './api-error';
import { authenticateHost, type HostPrincipal } from './host-auth';
import { classifyOutage, OUTAGE_MESSAGES, RETRY_AFTER_S } from './outage';
import { DEFAULT_MAX_BODY_BYTES, readBodyBytes, readJsonBody, readJsonText } from './read-body';

/**
 * The one wrapper every route handler goes through: authentication, roles,
 * input parsing and error mapping live here, so a handler only does its
 * job. Errors are JSON `{error: {code, message, details?}}`.
 */

export type AuthMode = 'public' | 'user' | 'host';
type Schema = z.ZodType | undefined;
type Infer<S extends Schema> = S extends z.ZodType ? z.infer<S> : undefined;

export type RouteOptions<A extends AuthMode, B extends Schema, Q extends Schema> = {
  auth: A;
  /** For `auth: 'user'`: one of these roles is required (admins always pass). */
  roles?: Role[];
  /** Zod schema for a JSON body; the handler gets the parsed value. */
  body?: B;
  /** Zod schema for the query string (an object of strings). */
  query?: Q;
  /**
   * The body as text, for handlers that check the raw text themselves:
   * `json` (415 unless JSON, fatal UTF-8, 400 `json_invalid` when empty) or
   * `form` (any type, e.g. Slack's signed form body). Both size-guarded.
   */
  text?: 'json' | 'form';
  maxBodyBytes?: number;
};

export type RouteContext<A extends AuthMode, B extends Schema, Q extends Schema> = {
  req: NextRequest;
  user: A extends 'user' ? SessionUser : null;
  host: A extends 'host' ? HostPrincipal : null;
  params: Record<string, string | string[]>;
  body: Infer<B>;
  query: Infer<Q>;
  /** The raw body when `options.text` is set, else ''. */
  text: string;
};

type Result = Response | object | null | undefined;
type NextContext = { params: Promise<Record<string, string | string[]>> };

const log = moduleLogger('http');

export function route<
  A extends AuthMode,
  B extends Schema = undefined,
  Q extends Schema = undefined,
>(
  options: RouteOptions<A, B, Q>,
  handler: (ctx: RouteContext<A, B, Q>) => Result | Promise<Result>,
): (req: NextRequest, ctx: NextContext) => Promise<Response> {
  return async (req, nextCtx) => {
    try {
      const ctx = await buildContext(options, req, nextCtx);
      return toResponse(await handler(ctx));
    } catch (err) {
      // redirect()/notFound() from Next are control flow, not failures.
      unstable_rethrow(err);
      return errorToResponse(err, req);
    }
  };
}

async function buildContext<A extends AuthMode, B extends Schema, Q extends Schema>(
  options: RouteOptions<A, B, Q>,
  req: NextRequest,
  nextCtx: NextContext,
): Promise<RouteContext<A, B, Q>> {
  let user: SessionUser | null = null;
  let host: HostPrincipal | null = null;
  if (options.auth === 'user') {
    user = await getCurrentUser();
    if (!user) throw unauthenticated('Sign in to use this endpoint.');
    if (options.roles?.length && !hasAnyRole(user.roles, options.roles)) throw forbidden();
  } else if (options.auth === 'host') {
    host = await authenticateHost(req);
  }
  const params = (await nextCtx?.params) ?? {};
  const query = options.query
    ? parseWith(options.query, Object.fromEntries(req.nextUrl.searchParams), 'query')
    : undefined;
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const body = options.body
    ? parseWith(options.body, await readJsonBody(req, maxBytes), 'body')
    : undefined;
  const text = await readText(req, options.text, maxBytes);
  return { req, user, host, params, body, query, text } as RouteContext<A, B, Q>;
}

async function readText(req: Request, kind: 'json' | 'form' | undefined, maxBytes: number) {
  if (kind === 'json') return readJsonText(req, maxBytes);
  // A form body is only size-guarded: its signature is checked on this text.
  if (kind === 'form') return new TextDecoder().decode(await readBodyBytes(req, maxBytes));
  return '';
}

/** Validates input; a failure names every bad field (400 request_invalid). */
function parseWith(schema: z.ZodType, value: unknown, where: 'body' | 'query'): unknown {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({
    path: i.path.map(String).join('.') || where,
    code: i.code,
    message: i.message,
  }));
  const summary = issues
    .slice(0, 5)
    .map((i) => `${i.path}: ${i.message}`)
    .join('; ');
  throw new AppError('request_invalid', `Invalid ${where}: ${summary}`, { issues });
}

function toResponse(result: Result): Response {
  if (result instanceof Response) return result;
  if (result === null || result === undefined) return new Response(null, { status: 204 });
  return Response.json(result);
}

/**
 * Maps anything thrown to a JSON error: an AppError answers its code and
 * status; a 500-status AppError (an internal invariant) and anything unknown
 * are logged and answered as a bare 500 `internal`, never leaked.
 */
export function errorToResponse(err: unknown, req?: Request): Response {
  if (err instanceof AppError && err.status < 500) return err.toResponse();
  const outage = outageResponse(err, req);
  if (outage) return outage;
  const prismaCode = (err as { code?: unknown; name?: string })?.code;
  if ((err as { name?: string })?.name === 'PrismaClientKnownRequestError') {
    if (prismaCode === 'P2025') return new AppError('not_found', 'Not found.').toResponse();
    if (prismaCode === 'P2002')
      return new AppError('conflict', 'That already exists.').toResponse();
  }
  const url = req ? new URL(req.url) : null;
  log.error({ err, method: req?.method, path: url?.pathname }, 'unhandled error in route');
  return new AppError('internal', 'Something went wrong on our side.').toResponse();
}

/**
 * A database or queue outage (outage.ts) is a 503 with `Retry-After`, logged
 * as a warning: the dependency is at fault, not the code.
 */
function outageResponse(err: unknown, req?: Request): Response | null {
  const code = classifyOutage(err);
  if (!code) return null;
  log.warn(
    {
      code,
      err: err instanceof Error ? err.message : String(err),
      method: req?.method,
      path: req ? new URL(req.url).pathname : undefined,
    },
    'dependency unavailable',
  );
  const message =
    err instanceof AppError && err.code === code ? err.message : OUTAGE_MESSAGES[code];
  return new AppError(code, message).toResponse({ 'retry-after': String(RETRY_AFTER_S[code]) });
}
