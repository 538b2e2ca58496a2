import { formatPath, HOST_ERRORS, parseTransformPath } from '@checkpoint/agent-hooks';
import { formatDuration, parseDuration } from './duration';
import type { ErrorCode } from '@/lib/server/http/error-codes';

/**
 * Validation of what an admin types for a host. Each problem is a field
 * error with a stable code; the services refuse the whole change when any
 * field is wrong (nothing is written).
 */

export type FieldErrors = Record<string, { code: ErrorCode; message: string }>;

export const HOST_NAME_MAX = 64;
export const DESCRIPTION_MAX = 500;
export const TIMEOUT_MIN_MS = 10_000;
export const TIMEOUT_MAX_MS = 7 * 86_400_000;
export const REDACTION_PATHS_MAX = 50;
const REDACTION_PATH_MAX_LENGTH = 512;

export function checkHostName(raw: unknown, fields: FieldErrors): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (!name || name.length > HOST_NAME_MAX || /\p{Cc}/u.test(name)) {
    fields.name = {
      code: 'host_name_invalid',
      message: `Name the host (1 to ${HOST_NAME_MAX} characters, one line).`,
    };
  }
  return name;
}

export function checkDescription(raw: unknown, fields: FieldErrors): string {
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (text.length > DESCRIPTION_MAX) {
    fields.description = {
      code: 'description_too_long',
      message: `Use at most ${DESCRIPTION_MAX} characters.`,
    };
  }
  return text;
}

/** A timeout given as milliseconds (number) or as a human duration (string). */
export function checkTimeout(raw: unknown, field: string, fields: FieldErrors): number {
  const ms =
    typeof raw === 'number' ? raw : typeof raw === 'string' ? parseDuration(raw) : Number.NaN;
  if (ms === null || !Number.isSafeInteger(ms)) {
    fields[field] = {
      code: 'timeout_invalid',
      message: 'Enter a duration such as 90s, 15m, 2h, 1d or 1h 30m (a bare number is minutes).',
    };
    return Number.NaN;
  }
  if (ms < TIMEOUT_MIN_MS || ms > TIMEOUT_MAX_MS) {
    fields[field] = {
      code: 'timeout_out_of_range',
      message: `Use between ${formatDuration(TIMEOUT_MIN_MS)} and ${formatDuration(TIMEOUT_MAX_MS)}.`,
    };
  }
  return ms;
}

/** The default deadline must fit under the maximum a request may ask for. */
export function checkTimeoutOrder(defaultMs: number, maxMs: number, fields: FieldErrors): void {
  if (fields.defaultTimeout || fields.maxTimeout) return;
  if (defaultMs > maxMs) {
    fields.defaultTimeout = {
      code: 'default_timeout_above_max',
      message: `The default (${formatDuration(defaultMs)}) must not exceed the maximum (${formatDuration(maxMs)}).`,
    };
  }
}

/**
 * Redaction paths, one per line (or a list): each must parse as a §5.2
 * path rooted at `$target` (the deprecated `$policy_target` alias is not
 * accepted for new configuration). The grammar is the engine's own
 * (`parseTransformPath`), so a path saved here is one `redactPaths`
 * accepts. Blank lines are skipped, duplicates dropped, and paths stored in
 * canonical form. The error names the line, the offset and the character.
 */
export function checkRedactionPaths(raw: unknown, fields: FieldErrors): string[] {
  const lines =
    typeof raw === 'string' ? raw.split(/\r?\n/) : Array.isArray(raw) ? raw.map(String) : null;
  if (lines === null) {
    fields.redactionPaths = { code: 'redaction_path_invalid', message: 'Give one path per line.' };
    return [];
  }
  const out: string[] = [];
  for (const [i, line] of lines.entries()) {
    const path = line.trim();
    if (!path) continue;
    const problem = redactionPathProblem(path);
    if (typeof problem === 'string') {
      const shown = path.length > 60 ? `${path.slice(0, 60)}…` : path;
      fields.redactionPaths = {
        code: 'redaction_path_invalid',
        message: `Line ${i + 1} (${shown}): ${problem}`,
      };
      return [];
    }
    if (!out.includes(problem.canonical)) out.push(problem.canonical);
  }
  if (out.length > REDACTION_PATHS_MAX) {
    fields.redactionPaths = {
      code: 'redaction_paths_too_many',
      message: `Use at most ${REDACTION_PATHS_MAX} paths.`,
    };
  }
  return out;
}

/** What is wrong with a path (a message), or its canonical spelling. */
export function redactionPathProblem(path: string): string | { canonical: string } {
  if (path.length > REDACTION_PATH_MAX_LENGTH) {
    return `a path has at most ${REDACTION_PATH_MAX_LENGTH} characters.`;
  }
  const parsed = parseTransformPath(path);
  if (!parsed.ok) {
    if (parsed.reason === HOST_ERRORS.transformTargetForbidden) {
      return 'a path must start with $target (e.g. $target.password for a tool argument named password).';
    }
    // "transform.path is malformed at offset N: expected …, found … (§5.2 grammar)"
    const detail = parsed.message
      .replace(/^transform\.path (is malformed )?/, '')
      .replace(/ \(§5\.2( grammar)?\)$/, '');
    return `not a valid §5.2 path: ${detail}. ${MEMBER_NAME_HINT}`;
  }
  if (parsed.deprecatedRoot) return 'write $target instead of the deprecated $policy_target.';
  return { canonical: formatPath(parsed.segments) };
}

/** Why some keys cannot be listed: the §5.2 grammar has no escape for them. */
export const MEMBER_NAME_HINT =
  'Member names use only A-Z, a-z, 0-9, "_" and "-" (as .name or ["name"]); a key with other characters (a space, a dot, non-ASCII) cannot be addressed by a §5.2 path.';
