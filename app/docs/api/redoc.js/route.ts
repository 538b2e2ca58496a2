import { route } from '@/lib/server/http/route';
import { redocBundleResponse } from '@/lib/server/openapi/docs-page';

/** The renderer of /docs/api: Redoc's standalone bundle, from node_modules, never a CDN. */
export const GET = route({ auth: 'public' }, () => redocBundleResponse());
