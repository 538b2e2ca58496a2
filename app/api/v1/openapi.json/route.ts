import pkg from '@/package.json' with { type: 'json' };
import { route } from '@/lib/server/http/route';
import { openApiResponse } from '@/lib/server/openapi/serve';

/** GET /api/v1/openapi.json: the host API's OpenAPI 3.1 document; public. */
export const GET = route({ auth: 'public' }, ({ req }) => openApiResponse(req, pkg.version));
