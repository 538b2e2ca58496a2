import 'server-only';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * /docs/api: the document rendered by Redoc's standalone bundle, served from
 * this origin (the `redoc` package, pinned; no CDN). The page is plain HTML
 * with a Content-Security-Policy that allows nothing but this origin, so the
 * renderer cannot reach the network (its sidebar's remote logo is refused).
 */

const REDOC_DIR = path.join(process.cwd(), 'node_modules', 'redoc');
export const REDOC_BUNDLE_PATH = '/docs/api/redoc.js';

let bundle: { js: string; version: string } | undefined;

/** The standalone bundle and its version, read once per process. */
export function redocBundle(): { js: string; version: string } {
  if (!bundle) {
    const pkg = JSON.parse(readFileSync(path.join(REDOC_DIR, 'package.json'), 'utf8'));
    const js = readFileSync(path.join(REDOC_DIR, 'bundles', 'redoc.standalone.js'), 'utf8');
    bundle = { js, version: String(pkg.version) };
  }
  return bundle;
}

/**
 * Styles are inline because Redoc styles with styled-components; `blob:`
 * workers run its search index.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': DOCS_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/** The page: Redoc reads the document from /api/v1/openapi.json. */
export function docsPageResponse(): Response {
  // The version in the URL lets the bundle be cached for good.
  const src = `${REDOC_BUNDLE_PATH}?v=${encodeURIComponent(redocBundle().version)}`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Checkpoint host API</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="/api/v1/openapi.json" expand-responses="200,201,202" required-props-first="true"></redoc>
<script src="${src}"></script>
</body>
</html>
`;
  return new Response(html, {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-cache',
      ...SECURITY_HEADERS,
    },
  });
}

export function redocBundleResponse(): Response {
  return new Response(redocBundle().js, {
    headers: {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=31536000, immutable',
      ...SECURITY_HEADERS,
    },
  });
}
