export type { HostActorId } from './admin-actor';
export { API_KEY_PREFIX, hashApiKey, isApiKeyShaped } from './api-key';
export { type ApiKeySummary, issueApiKey, listApiKeys, revokeApiKey } from './api-keys';
export { BUILT_IN_HOST_NAME, ensureBuiltInHost } from './builtin';
export { formatDuration, parseDuration } from './duration';
export { TIMEOUT_MAX_MS, TIMEOUT_MIN_MS } from './host-input';
export {
  archiveHost,
  createHost,
  getHost,
  getHostSettings,
  type HostEvent,
  type HostInput,
  type HostListItem,
  type HostSettings,
  type HostSummary,
  listHostEvents,
  listHosts,
  restoreHost,
  updateHost,
} from './hosts';
