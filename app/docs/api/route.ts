import { route } from '@/lib/server/http/route';
import { docsPageResponse } from '@/lib/server/openapi/docs-page';

/**
 * /docs/api: the host API reference, rendered in the browser from
 * /api/v1/openapi.json by the locally served Redoc bundle. A route rather
 * than a page: the renderer owns the whole document, and its
 * Content-Security-Policy keeps it to this origin. Signing in is required
 * (proxy.ts); the document itself is public.
 */
export const GET = route({ auth: 'public' }, () => docsPageResponse());
