import { canonicalOrNull, isPlainContainer } from './canonical-fast.ts';
import { IDENTITY_CONDITIONAL, IDENTITY_CORE, identityOfCanonical } from './identity.ts';
import { isWellFormed, stringBytes } from './json-strings.ts';
import { TARGET_LOCATIONS } from './transform.ts';
import type { AgentContext } from './types.ts';
import { utf8Length } from './utf8.ts';
import { scanValue } from './value-domain.ts';
import { INTERCEPTION_POINTS, type InterceptionPoint } from './vocabulary.ts';

export interface Digest {
  /** The jcs-sha256 identity (§10.2), byte-identical to `jcsSha256.compute`. */
  identity: string;
  /**
   * UTF-8 length of the context's JSON text (§12.3). Counted only when asked
   * (`measure`) or when the bound is close; null when the text is so far
   * under the bound that even 3 bytes per UTF-16 unit stays within it.
   */
  bytes: number | null;
}

interface Limits {
  maxBytes: number;
  maxDepth: number;
}

/**
 * The emission's hot path: the §4.4/§12.3 check of the whole context and the
 * jcs-sha256 identity of its projection, in one pass.
 *
 * Each point has a fixed projection layout (§10.2 whitelists, sorted once):
 * the canonical text is written field by field in that order, with no member
 * lists and no sorting per emission. `target` aliases a conditional field
 * (§4.3), so the projection holds the largest value twice; it is
 * canonicalized once and spliced in both places. The size comes from the
 * same text: canonical JSON and JSON.stringify differ only in member order,
 * never in length, and the members outside the projection are measured on
 * the side.
 *
 * Returns null whenever anything is off (a violation, a missing member, a
 * size breach, a non-plain object); the caller then runs the authoritative
 * checks, which say exactly what and where.
 */
export function digestContext(
  ctx: AgentContext,
  limits: Limits,
  opts?: { measure?: boolean },
): Digest | null {
  try {
    return digest(ctx, limits, opts?.measure === true);
  } catch {
    return null;
  }
}

const IDENTITY_MAX_DEPTH = 128;

/** One whitelisted member, in canonical order; `prefix` is `{"key":` or `,"key":`. */
interface Field {
  key: string;
  prefix: string;
  /** Subfields kept (§10.2 nested whitelists), null when the whole value is. */
  sub: Layout | null;
  /** Whether this member is `target` or where `target` points (§4.3). */
  aliased: boolean;
}

interface Layout {
  fields: readonly Field[];
  /** The member names, for telling the others apart. */
  names: ReadonlySet<string>;
}

interface PointLayout extends Layout {
  /** How deep the aliased value sits: 1 for a top-level member, 2 under a nested whitelist. */
  aliasDepth: number;
}

let layouts: Map<string, PointLayout> | undefined;

/** The point's layout, built on first use (the package has no import-time work); null if unknown. */
export function pointLayout(point: unknown): PointLayout | null {
  if (layouts === undefined) {
    layouts = new Map();
    for (const p of INTERCEPTION_POINTS) layouts.set(p, buildPointLayout(p));
  }
  return (typeof point === 'string' && layouts.get(point)) || null;
}

function buildPointLayout(point: InterceptionPoint): PointLayout {
  const whitelist = { ...IDENTITY_CORE, ...IDENTITY_CONDITIONAL[point] };
  const [top, nested] = TARGET_LOCATIONS[point];
  const keys = Object.keys(whitelist).sort();
  const fields = keys.map((key, i): Field => {
    const keep = whitelist[key];
    const aliasedHere = key === top;
    return {
      key,
      prefix: `${i === 0 ? '{' : ','}${JSON.stringify(key)}:`,
      sub: keep === true ? null : layoutOf(keep, aliasedHere ? nested : undefined),
      // `target` itself, and the member it aliases when that is a whole value.
      aliased: key === 'target' || (aliasedHere && nested === undefined),
    };
  });
  return { fields, names: new Set(keys), aliasDepth: nested === undefined ? 1 : 2 };
}

function layoutOf(keep: readonly string[], aliasedKey: string | undefined): Layout {
  const keys = [...keep].sort();
  const fields = keys.map(
    (key, i): Field => ({
      key,
      prefix: `${i === 0 ? '{' : ','}${JSON.stringify(key)}:`,
      sub: null,
      aliased: key === aliasedKey,
    }),
  );
  return { fields, names: new Set(keys) };
}

/** Walks one emission's context against its point's layout. */
class Digester {
  /** Bytes of the members outside the projection, commas and keys included. */
  extraBytes = 0;

  constructor(
    readonly limits: Limits,
    /** jcs-sha256 canonicalizes under its own default depth; the context check runs under the host's. */
    readonly identityDepth: number,
    readonly target: unknown,
    readonly targetText: string,
  ) {}

  /**
   * The canonical text of an object's whitelisted members, in layout order;
   * members outside the whitelist are checked and measured. `depth` is the
   * object's own depth in the context (the context itself is 0).
   */
  object(value: unknown, layout: Layout, depth: number): string | null {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    if (depth >= this.identityDepth || !isPlainContainer(value)) return null;
    const object = value as Record<string, unknown>;
    let text = '';
    for (const field of layout.fields) {
      const member = object[field.key];
      if (member === undefined) return null;
      const memberText =
        field.sub !== null
          ? this.object(member, field.sub, depth + 1)
          : field.aliased && member === this.target
            ? this.targetText
            : canonicalOrNull(member, this.identityDepth - depth - 1);
      if (memberText === null) return null;
      text += field.prefix + memberText;
    }
    if (!this.others(object, layout, depth)) return null;
    return `${text}}`;
  }

  /**
   * Checks and measures the members outside the layout. When the own keys
   * are exactly the layout's (the usual case) there are none; comparing the
   * names also proves every whitelisted member read above was an own one.
   */
  private others(object: Record<string, unknown>, layout: Layout, depth: number): boolean {
    const keys = Object.keys(object);
    let own = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (layout.names.has(key)) {
        own++;
        continue;
      }
      const member = object[key];
      if (member !== undefined && !this.skip(key, member, this.limits.maxDepth - depth - 1)) {
        return false;
      }
    }
    return own === layout.fields.length;
  }

  /** A member left out of the projection: checked and measured only. */
  private skip(key: string, value: unknown, depthLeft: number): boolean {
    if (!isWellFormed(key)) return false;
    const stats = scanValue(value, depthLeft, { measure: true });
    if (!stats) return false;
    this.extraBytes += stringBytes(key) + 2 + stats.bytes;
    return this.extraBytes <= this.limits.maxBytes;
  }
}

function digest(ctx: AgentContext, limits: Limits, measure: boolean): Digest | null {
  const layout = pointLayout(ctx.interception_point);
  if (layout === null) return null;
  const identityDepth = Math.min(IDENTITY_MAX_DEPTH, limits.maxDepth);
  // The aliased target may sit one level deeper (tool_call.args, tool_result.value):
  // canonicalize it under the stricter bound so both places can use the one text.
  const target = ctx.target;
  const targetText = canonicalOrNull(target, identityDepth - layout.aliasDepth);
  if (targetText === null) return null;
  const d = new Digester(limits, identityDepth, target, targetText);
  const text = d.object(ctx, layout, 0);
  if (text === null) return null;
  return withinBound(identityOfCanonical(text), text, d.extraBytes, limits.maxBytes, measure);
}

/**
 * §12.3 on the context's JSON text: `text.length` UTF-16 units are at least
 * that many and at most three times that many UTF-8 bytes (a pair is 2 units,
 * 4 bytes), so the exact count is needed only when those bounds straddle the
 * limit, or when the caller asks for it.
 */
function withinBound(
  identity: string,
  text: string,
  extraBytes: number,
  maxBytes: number,
  measure: boolean,
): Digest | null {
  if (text.length + extraBytes > maxBytes) return null;
  if (!measure && text.length * 3 + extraBytes <= maxBytes) return { identity, bytes: null };
  const bytes = utf8Length(text) + extraBytes;
  return bytes > maxBytes ? null : { identity, bytes };
}
