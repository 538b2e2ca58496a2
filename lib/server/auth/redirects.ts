/**
 * Same-origin, relative redirect targets. Relative paths sidestep Auth.js
 * building absolute URLs from `localhost` when the browser used 127.0.0.1
 * (the session cookie would then go missing), and they cannot point off-site.
 */

/** Request header in which proxy.ts passes the requested path to pages (for ?next=). */
export const PATH_HEADER = 'x-checkpoint-path';

/** A safe path to return to after sign-in, or `fallback`. */
export function safeNextPath(raw: unknown, fallback = '/'): string {
  if (typeof raw !== 'string' || raw.length > 2048) return fallback;
  if (!isLocalPath(raw)) return fallback;
  if (raw.startsWith('/sign-in') || raw.startsWith('/api/')) return fallback;
  return raw;
}

/** Auth.js `redirect` callback: keep same-origin targets, as relative paths. */
export function relativeRedirect(url: string, baseUrl: string): string {
  if (url.startsWith('/')) return isLocalPath(url) ? url : '/';
  try {
    const target = new URL(url);
    if (target.origin === new URL(baseUrl).origin) {
      return `${target.pathname}${target.search}${target.hash}`;
    }
  } catch {
    // Not a URL: fall through to the safe default.
  }
  return '/';
}

function isLocalPath(path: string): boolean {
  // "//host" and "/\\host" are protocol-relative in browsers: off-site.
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting them is the point
  return !/[\u0000-\u001f]/.test(path);
}
