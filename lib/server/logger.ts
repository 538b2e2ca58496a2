import 'server-only';
import pino, { type DestinationStream, type Logger } from 'pino';
import { config } from './config';

/**
 * Structured JSON logs on stdout (one line per event). No transports: pino's
 * worker-thread transports do not survive Next's server bundle, and a log
 * shipper reads stdout anyway.
 */

export type { Logger };

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * Keys whose values never reach a log line, at the top level or one object
 * deep (`{req: {headers: {authorization}}}` is covered by the explicit path).
 */
const SECRET_KEYS = [
  'password',
  'passwordHash',
  'secret',
  'token',
  'apiKey',
  'authorization',
  'cookie',
  'connectionString',
  'databaseUrl',
  'redisUrl',
];
const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  'req.headers.authorization',
  'req.headers.cookie',
];

export interface LoggerOptions {
  level?: Level;
  /** Where lines go; stdout when omitted. Tests pass a collecting stream. */
  destination?: DestinationStream;
}

/** A root logger; the app uses the shared `log` below. */
export function createLogger(opts: LoggerOptions = {}): Logger {
  return pino(
    {
      level: opts.level ?? configuredLevel(),
      base: { app: 'checkpoint' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    opts.destination,
  );
}

function configuredLevel(): Level {
  // The logger must work even when the configuration is invalid: boot logs
  // exactly that error before exiting.
  try {
    return config().LOG_LEVEL;
  } catch {
    return 'info';
  }
}

const g = globalThis as unknown as { __checkpointLog?: Logger };

/** The process logger (one per process, shared across Next's module graphs). */
export const log: Logger = g.__checkpointLog ?? createLogger();
g.__checkpointLog = log;

/** A child logger tagged with the module that writes. */
export function moduleLogger(module: string): Logger {
  return log.child({ module });
}

/** Removes credentials from a URL so it can be logged or shown. */
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '[unparseable url]';
  }
}
