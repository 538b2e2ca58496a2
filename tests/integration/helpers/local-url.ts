/**
 * Integration tests create and drop databases and flush keys: they refuse
 * to point at anything but this machine, so a stray DATABASE_URL or
 * REDIS_URL can never cost someone their data.
 */

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Throws unless `url` names a service on this machine (TCP loopback or a unix socket). */
export function assertLocalUrl(url: string, what: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`${what} is not a URL: refusing to run integration tests`);
  }
  // postgresql:///db?host=/var/run/postgresql is a unix socket.
  const socket = u.searchParams.get('host');
  const local =
    (u.hostname === '' && (socket === null || socket.startsWith('/'))) ||
    (LOCAL_HOSTS.has(u.hostname) && (socket === null || socket.startsWith('/')));
  if (!local) {
    throw new Error(
      `${what} points at ${u.hostname || socket}, not this machine: integration tests create and ` +
        'drop databases and only run against 127.0.0.1, localhost, ::1 or a unix socket',
    );
  }
  return u;
}

/** Unique per run: parallel runs (several engineers, CI) never share state. */
export function runId(): string {
  return `ck_it_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
}
