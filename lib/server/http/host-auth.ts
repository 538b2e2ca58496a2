import 'server-only';
import { ApiError } from './api-error';

/** The machine client behind a request authenticated with an API key. */
export type HostPrincipal = { hostId: string; apiKeyId: string };

/**
 * Extension point for `route({ auth: 'host' })`: resolves the Bearer API key
 * of a request to its host. API keys arrive with the hosts work; until then
 * every host request fails closed as unauthenticated. Replace this body,
 * keep the signature.
 */
export async function authenticateHost(_req: Request): Promise<HostPrincipal> {
  throw new ApiError(401, 'unauthenticated', 'API key authentication is not available yet.');
}
