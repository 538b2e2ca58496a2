import 'server-only';
import { createHash } from 'node:crypto';
import { buildOpenApiDocument } from './document';

/**
 * GET /api/v1/openapi.json: the document, built once per process (it only
 * changes with a deployment). Public and cacheable for a few minutes; the
 * ETag lets a client revalidate for free.
 */

let cached: { body: string; etag: string } | undefined;

function serialized(version: string) {
  if (!cached) {
    const body = JSON.stringify(buildOpenApiDocument({ version }));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    cached = { body, etag };
  }
  return cached;
}

export function openApiResponse(req: Request, version: string): Response {
  const { body, etag } = serialized(version);
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'public, max-age=300',
    ETag: etag,
  };
  const match = req.headers.get('if-none-match');
  if (match?.split(',').some((tag) => tag.trim() === etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(body, { headers });
}
