/**
 * Deep copy into plain JSON data. Reads go through ordinary property access,
 * so an isolated view (isolation.ts) materializes into the interceptor's own
 * state. Anything JSON cannot carry is refused: §11 maps an interceptor that
 * returns a non-JSON value to `host_error:interceptor_failed`.
 */
export class NonJsonValueError extends Error {
  constructor(readonly path: string) {
    super(`value at ${path} is not JSON data`);
    this.name = 'NonJsonValueError';
  }
}

export function toPlain(value: unknown, maxDepth = 256): unknown {
  return copy(value, '$', 0, maxDepth);
}

function copy(value: unknown, path: string, depth: number, maxDepth: number): unknown {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new NonJsonValueError(path);
      return value;
    case 'object':
      break;
    default:
      throw new NonJsonValueError(path);
  }
  // Also the guard against cycles: a cyclic value is "too deep".
  if (depth >= maxDepth) throw new NonJsonValueError(path);
  if (Array.isArray(value)) {
    const n = value.length;
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      const item = value[i];
      if (item === undefined) throw new NonJsonValueError(`${path}[${i}]`);
      out[i] = copy(item, `${path}[${i}]`, depth + 1, maxDepth);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw new NonJsonValueError(path);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    // JSON drops undefined members; so do we, rather than failing a verdict over it.
    if (item === undefined) continue;
    out[key] = copy(item, `${path}.${key}`, depth + 1, maxDepth);
  }
  return out;
}

/** Structural equality of JSON data (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], bb[i])) return false;
    return true;
  }
  const ak = Object.keys(a);
  const bk = Object.keys(b);
  if (ak.length !== bk.length) return false;
  for (const k of ak) {
    if (!Object.hasOwn(b, k)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) {
      return false;
    }
  }
  return true;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
