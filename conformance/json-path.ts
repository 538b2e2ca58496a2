/**
 * The CTK's assertion paths (FORMAT.md): `a.b[0].c`, with `["x"]` for
 * members that are not plain names. A path either resolves to a value
 * (which may be null) or does not resolve at all.
 */
type Segment = string | number;

export type Resolved = { found: true; value: unknown } | { found: false };

export function parsePath(path: string): Segment[] {
  const out: Segment[] = [];
  let i = 0;
  let name = '';
  const flush = () => {
    if (name !== '') out.push(name);
    name = '';
  };
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      flush();
      i++;
    } else if (c === '[') {
      flush();
      const end = path.indexOf(']', i);
      if (end < 0) throw new Error(`unclosed [ in path ${JSON.stringify(path)}`);
      const inner = path.slice(i + 1, end);
      if (/^\d+$/.test(inner)) out.push(Number(inner));
      else if (inner.startsWith('"')) out.push(JSON.parse(inner) as string);
      else throw new Error(`bad index [${inner}] in path ${JSON.stringify(path)}`);
      i = end + 1;
    } else {
      name += c;
      i++;
    }
  }
  flush();
  return out;
}

export function resolvePath(root: unknown, path: string): Resolved {
  let cur: unknown = root;
  for (const seg of parsePath(path)) {
    if (typeof seg === 'number') {
      if (!Array.isArray(cur) || seg >= cur.length) return { found: false };
      cur = cur[seg];
    } else {
      if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return { found: false };
      if (!Object.hasOwn(cur, seg)) return { found: false };
      cur = (cur as Record<string, unknown>)[seg];
    }
    // A member holding `undefined` is not JSON: it did not resolve.
    if (cur === undefined) return { found: false };
  }
  return { found: true, value: cur };
}

/** JSON equality: member order is irrelevant, array order is not. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null) return false;
  if (typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return (
    ak.length === bk.length && ak.every((k) => Object.hasOwn(bo, k) && deepEqual(ao[k], bo[k]))
  );
}

/** Every `path -> value` entry resolves on `root` and deep-equals. */
export function matches(root: unknown, predicates: Record<string, unknown> | undefined): boolean {
  if (!predicates) return true;
  return Object.entries(predicates).every(([path, want]) => {
    const got = resolvePath(root, path);
    return got.found && deepEqual(got.value, want);
  });
}

/** A JSON copy: plain data, detached from proxies and shared references. */
export function jsonCopy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
