import { canonicalJson } from './canonical-json.ts';
import { isWellFormed } from './json-strings.ts';
import { isDomainMember, isDomainNumber } from './number-domain.ts';

/**
 * The emission's canonicalizer: RFC 8785 text of a value in the §4.4 domain,
 * or null for anything else (out of the domain, deeper than `maxDepth`, a
 * non-plain object, a stack overflow). It never says why: on null the caller
 * runs canonicalJson (canonical-json.ts), the general path, which decides
 * and explains. The unit tests hold the two byte-identical wherever this one
 * answers, and hold it to answer wherever canonicalJson does.
 *
 * Two paths, both one walk plus the serialization:
 * - keys already sorted: a scan checks the domain and that every object's
 *   keys come in UTF-16 code-unit order; then JSON.stringify, natively, is
 *   the canonical text (same scalar forms, and it emits members in
 *   Object.keys order, which the scan just found sorted). Contexts that were
 *   canonical JSON text once, or were written by a sorting client, take it.
 *   The scan gives up at the first unsorted object, so a value that is not
 *   sorted pays for almost nothing here.
 * - otherwise: one recursive pass that checks and serializes together,
 *   sorting only the objects whose keys are out of order (small ones by
 *   insertion, in place on their own Object.keys array); a large value is
 *   handed to canonicalJson instead (see SMALL_TEXT).
 *
 * Depth counts as in value-domain.ts: the value's own container is depth 0
 * and every container must sit at a depth below `maxDepth`.
 */
export function canonicalOrNull(value: unknown, maxDepth: number): string | null {
  try {
    const sorted = sortedScan(value, 0, maxDepth);
    if (sorted === SORTED) return JSON.stringify(value);
    if (sorted === OUTSIDE) return null;
    return serialize(value, 0, maxDepth);
  } catch (error) {
    // A stack overflow under a caller-raised maxDepth: the general path says so.
    if (error !== TOO_LARGE) return null;
  }
  try {
    return canonicalJson(value, { maxDepth });
  } catch {
    return null;
  }
}

/**
 * Past this many UTF-16 units of text in one container, the one-pass
 * serializer hands over to canonicalJson: JSON.stringify with a property
 * list is native and wins on large values (bench/engine.ts, 100 KiB and
 * 1 MiB), while on small ones its scan and key collection cost more than
 * they save. At most this much serializing is thrown away; an array longer
 * than LONG_ARRAY is handed over before any.
 */
const SMALL_TEXT = 8192;
const LONG_ARRAY = 128;
const TOO_LARGE = Symbol('too large for the one-pass serializer');

const SORTED = 0;
const UNSORTED = 1;
const OUTSIDE = 2;
type ScanResult = typeof SORTED | typeof UNSORTED | typeof OUTSIDE;

/** Exported for the unit tests: whether the sorted path would take `value`. */
export function hasSortedKeys(value: unknown, maxDepth: number): boolean {
  return sortedScan(value, 0, maxDepth) === SORTED;
}

function sortedScan(value: unknown, depth: number, maxDepth: number): ScanResult {
  switch (typeof value) {
    case 'string':
      return isWellFormed(value) ? SORTED : OUTSIDE;
    case 'number':
      return isDomainNumber(value) ? SORTED : OUTSIDE;
    case 'boolean':
      return SORTED;
    case 'object': {
      if (value === null) return SORTED;
      if (depth >= maxDepth) return OUTSIDE;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const item = value[i];
          if (item === undefined) return OUTSIDE;
          const r = sortedScan(item, depth + 1, maxDepth);
          if (r === UNSORTED) return r;
          if (r === OUTSIDE && !isVouched(value, i, item)) return OUTSIDE;
        }
        return SORTED;
      }
      if (!isPlainContainer(value)) return OUTSIDE;
      const object = value as Record<string, unknown>;
      const keys = Object.keys(object);
      if (!inOrder(keys)) return UNSORTED;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        const member = object[key];
        if (member === undefined) continue;
        if (!isWellFormed(key)) return OUTSIDE;
        const r = sortedScan(member, depth + 1, maxDepth);
        if (r === UNSORTED) return r;
        if (r === OUTSIDE && !isVouched(object, key, member)) return OUTSIDE;
      }
      return SORTED;
    }
    default:
      return OUTSIDE;
  }
}

/** Checks and serializes in one pass; null for anything outside the domain. */
function serialize(value: unknown, depth: number, maxDepth: number): string | null {
  switch (typeof value) {
    case 'string':
      return isWellFormed(value) ? JSON.stringify(value) : null;
    case 'number':
      return isDomainNumber(value) ? JSON.stringify(value) : null;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (depth >= maxDepth) return null;
      if (Array.isArray(value)) return serializeArray(value, depth, maxDepth);
      if (!isPlainContainer(value)) return null;
      return serializeObject(value as Record<string, unknown>, depth, maxDepth);
    }
    default:
      return null;
  }
}

function serializeArray(array: unknown[], depth: number, maxDepth: number): string | null {
  const n = array.length;
  if (n === 0) return '[]';
  // A long array is a large value: hand it over before serializing any of it.
  if (n > LONG_ARRAY) throw TOO_LARGE;
  let out = '[';
  for (let i = 0; i < n; i++) {
    const item = array[i];
    if (item === undefined) return null;
    const text = serialize(item, depth + 1, maxDepth) ?? vouchedText(array, i, item);
    if (text === null) return null;
    out += i === 0 ? text : `,${text}`;
    if (out.length > SMALL_TEXT) throw TOO_LARGE;
  }
  return `${out}]`;
}

function serializeObject(
  object: Record<string, unknown>,
  depth: number,
  maxDepth: number,
): string | null {
  const keys = Object.keys(object);
  if (!inOrder(keys)) sortKeys(keys);
  let out = '{';
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const member = object[key];
    // An undefined member is an absent member (JSON.stringify, RFC 8785 libraries).
    if (member === undefined) continue;
    if (!isWellFormed(key)) return null;
    const text = serialize(member, depth + 1, maxDepth) ?? vouchedText(object, key, member);
    if (text === null) return null;
    out += `${first ? '' : ','}${quoted(key)}:${text}`;
    first = false;
    if (out.length > SMALL_TEXT) throw TOO_LARGE;
  }
  return `${out}}`;
}

/** Whether keys are in strictly ascending UTF-16 code-unit order (JS `<` on strings). */
function inOrder(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (!(keys[i - 1] < keys[i])) return false;
  return true;
}

const INSERTION_SORT_MAX = 12;

/** In place, by UTF-16 code units, like Array.prototype.sort with no comparator. */
function sortKeys(keys: string[]): void {
  if (keys.length > INSERTION_SORT_MAX) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i];
    let j = i - 1;
    while (j >= 0 && keys[j] > key) {
      keys[j + 1] = keys[j];
      j--;
    }
    keys[j + 1] = key;
  }
}

/** A plain object (value-domain.ts's rule): Object.prototype or null prototype. */
export function isPlainContainer(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A number the JSON-text funnel accepted on its token, where it put it (number-domain.ts). */
function isVouched(container: object, key: string | number, member: unknown): boolean {
  return typeof member === 'number' && isDomainMember(container, key, member);
}

function vouchedText(container: object, key: string | number, member: unknown): string | null {
  return isVouched(container, key, member) ? JSON.stringify(member) : null;
}

// Keys repeat across the objects of a context (role, content, id, …): quote
// each once. Bounded, so a context with many distinct keys cannot grow it.
const QUOTED = new Map<string, string>();
const QUOTED_MAX = 512;

function quoted(key: string): string {
  let q = QUOTED.get(key);
  if (q === undefined) {
    q = JSON.stringify(key);
    if (QUOTED.size < QUOTED_MAX && key.length <= 64) QUOTED.set(key, q);
  }
  return q;
}
