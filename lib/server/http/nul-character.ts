import 'server-only';
import { AppError } from './api-error';

/**
 * U+0000 is an ordinary character of a JSON string and inside the value
 * domain (§4.4): the engine hashes it like any other. PostgreSQL cannot store
 * it (text refuses the byte, jsonb refuses the `\u0000` escape), so every
 * write path checks what it is about to store and refuses it up front with
 * `nul_character`, naming the member, instead of failing inside the INSERT
 * with a 500 that a client would retry forever.
 */

const NUL = '\u0000';
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One step of a path: `.name`, `["odd name"]` (JSON-escaped, so no raw NUL) or `[3]`. */
function step(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return PLAIN_NAME.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/**
 * The path (from `root`) of the first string or member name holding U+0000,
 * in document order, or null when there is none. Values are parsed JSON, so
 * there are no cycles; depth is bounded by the parsers before this runs.
 */
export function findNulCharacter(value: unknown, root = '$'): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? root : null;
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNulCharacter(value[i], root + step(i));
      if (found) return found;
    }
    return null;
  }
  for (const [key, member] of Object.entries(value)) {
    const at = root + step(key);
    if (key.includes(NUL)) return at;
    const found = findNulCharacter(member, at);
    if (found) return found;
  }
  return null;
}

/** The sentence every refusal uses, so hosts see one wording for one mistake. */
export function nulCharacterMessage(path: string): string {
  return `${path} contains U+0000, which the store cannot hold; remove it before sending (valid JSON, but refused here).`;
}

/** The refusal of one item of a batch (a record), or null when it holds no NUL. */
export function nulCharacterIssue(
  value: unknown,
): { code: 'nul_character'; message: string; path: string } | null {
  const path = findNulCharacter(value);
  return path ? { code: 'nul_character', message: nulCharacterMessage(path), path } : null;
}

/** 422 `nul_character` with `details.path`: a well-formed request this server cannot store. */
export function nulCharacterError(path: string): AppError {
  return new AppError('nul_character', nulCharacterMessage(path), { path });
}

/** Throws `nul_character` when `value` holds U+0000 anywhere. */
export function assertNoNulCharacter(value: unknown, root = '$'): void {
  const path = findNulCharacter(value, root);
  if (path) throw nulCharacterError(path);
}
