/**
 * Same-origin, relative redirect targets. Relative paths sidestep Auth.js
 * building absolute URLs from `localhost` when the browser used 127.0.0.1
 * (the session cookie would then go missing), and they cannot point off-site.
 *
 * A target is never passed on as the caller wrote it: it is resolved with
 * the URL parser against a base and only the normalized pathname + search
 * go out. String checks on the raw text miss what browsers do with dot
 * segments, `%2e`, backslashes and stripped tabs (`/.//evil.example`
 * resolves to the path `//evil.example`, which a router then reads as
 * protocol-relative), and non-ASCII text cannot go into a header as is.
 */

/** Request header in which proxy.ts passes the requested path to pages (for ?next=). */
export const PATH_HEADER = 'x-checkpoint-path';

/** Stands in for our origin when a target is resolved without one at hand. */
const FIXED_BASE = 'http://checkpoint.invalid';
const MAX_TARGET_LENGTH = 2048;

/**
 * The normalized `pathname + search` of `raw` when it resolves to the same
 * origin as `base`, else null. The result starts with exactly one `/`.
 */
export function localPath(raw: unknown, base: string = FIXED_BASE): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_TARGET_LENGTH) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting them is the point
  if (/[\u0000-\u001f\u007f]/.test(raw)) return null;
  let origin: string;
  let target: URL;
  try {
    origin = new URL(base).origin;
    target = new URL(raw, base);
  } catch {
    return null;
  }
  if (target.origin !== origin) return null;
  // The parser turns `\` into `/` for http(s), so `//` covers `/\` too; a
  // path that still starts with two slashes would leave the site.
  if (!target.pathname.startsWith('/') || /^\/[/\\]/.test(target.pathname)) return null;
  return `${target.pathname}${target.search}`;
}

/** A safe path to return to after sign-in, or `fallback`. */
export function safeNextPath(raw: unknown, fallback = '/'): string {
  // Only paths are accepted here, never absolute URLs (even our own).
  if (typeof raw !== 'string' || !raw.startsWith('/')) return fallback;
  const path = localPath(raw);
  if (path === null) return fallback;
  const pathname = path.split('?')[0] as string;
  if (/^\/sign-in(\/|$)/.test(pathname) || /^\/api(\/|$)/.test(pathname)) return fallback;
  return path;
}

/** Auth.js `redirect` callback: keep same-origin targets, as normalized relative paths. */
export function relativeRedirect(url: string, baseUrl: string): string {
  return localPath(url, baseUrl) ?? '/';
}
