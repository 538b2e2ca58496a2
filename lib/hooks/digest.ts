import { canonicalJson } from './canonical-json.ts';
import {
  IDENTITY_CONDITIONAL,
  IDENTITY_CORE,
  identityOfCanonical,
  type ProjectedField,
} from './identity.ts';
import { isPlainObject } from './plain.ts';
import type { AgentContext } from './types.ts';
import { isDomainNumber } from './number-domain.ts';
import { isWellFormed, stringBytes } from './json-strings.ts';
import { utf8Length } from './utf8.ts';
import { scanValue } from './value-domain.ts';
import type { InterceptionPoint } from './vocabulary.ts';

export interface Digest {
  /** The jcs-sha256 identity (§10.2), byte-identical to `jcsSha256.compute`. */
  identity: string;
  /** UTF-8 length of the context's JSON text (§12.3). */
  bytes: number;
}

interface Limits {
  maxBytes: number;
  maxDepth: number;
}

/**
 * The emission's hot path: the §4.4/§12.3 check of the whole context and the
 * jcs-sha256 identity of its projection, in one pass.
 *
 * `target` aliases a conditional field (§4.3), so the projection holds the
 * largest value twice; the canonical form of a value does not depend on
 * where it sits, so each object is canonicalized once and spliced wherever
 * it appears. The size comes from the same text: canonical JSON and
 * JSON.stringify differ only in member order, never in length, and the
 * members outside the projection are measured on the side.
 *
 * Returns null whenever anything is off (a violation, a missing member, a
 * size breach); the caller then runs the authoritative checks, which say
 * exactly what and where.
 */
export function digestContext(ctx: AgentContext, limits: Limits): Digest | null {
  try {
    return digest(ctx, limits);
  } catch {
    return null;
  }
}

const IDENTITY_MAX_DEPTH = 128;
type Member = [key: string, text: string];

class Digester {
  /** Bytes of the members outside the projection, commas and keys included. */
  extraBytes = 0;
  private readonly cache = new Map<object, { text: string; depthLeft: number }>();

  constructor(readonly limits: Limits) {}

  canon(value: unknown, depthLeft: number): string {
    const scalar = scalarText(value);
    if (scalar !== null) return scalar;
    const hit = this.cache.get(value as object);
    if (hit && hit.depthLeft <= depthLeft) return hit.text;
    const text = canonicalJson(value, { maxDepth: depthLeft });
    if (typeof value === 'object' && value !== null) this.cache.set(value, { text, depthLeft });
    return text;
  }

  /** A member left out of the projection: checked and measured only. */
  skip(key: string, value: unknown, depthLeft: number): void {
    if (!isWellFormed(key)) throw new Error('lone surrogate in a key');
    const stats = scanValue(value, depthLeft, { measure: true });
    if (!stats) throw new Error('outside the domain');
    this.extraBytes += stringBytes(key) + 2 + stats.bytes;
    if (this.extraBytes > this.limits.maxBytes) throw new Error('too large');
  }
}

function digest(ctx: AgentContext, limits: Limits): Digest | null {
  const point = ctx.interception_point as InterceptionPoint;
  const conditional = IDENTITY_CONDITIONAL[point];
  // jcs-sha256 canonicalizes under its own default depth; the context check runs under the host's.
  const identityDepth = Math.min(IDENTITY_MAX_DEPTH, limits.maxDepth);
  const d = new Digester(limits);
  // The aliased target sits one level deeper under tool_call.args / tool_result.value:
  // canonicalize it under the stricter bound first so both places reuse it.
  d.canon(
    ctx.target,
    identityDepth - (point === 'pre_tool_call' || point === 'post_tool_call' ? 2 : 1),
  );

  const projected: Member[] = [];
  for (const key of Object.keys(ctx)) {
    const value = ctx[key];
    if (value === undefined) continue;
    const keep: ProjectedField | undefined = Object.hasOwn(IDENTITY_CORE, key)
      ? IDENTITY_CORE[key]
      : Object.hasOwn(conditional, key)
        ? conditional[key]
        : undefined;
    if (keep === undefined) d.skip(key, value, limits.maxDepth - 1);
    else if (keep === true) projected.push([key, d.canon(value, identityDepth - 1)]);
    else projected.push([key, subObject(d, value, keep, identityDepth - 2)]);
  }
  if (projected.length !== Object.keys(IDENTITY_CORE).length + Object.keys(conditional).length) {
    return null;
  }
  const text = objectText(projected);
  const bytes = utf8Length(text) + d.extraBytes;
  if (bytes > limits.maxBytes) return null;
  return { identity: identityOfCanonical(text), bytes };
}

/** A whitelisted object (§10.2 nested subfields): projected text; the rest is measured. */
function subObject(
  d: Digester,
  value: unknown,
  keep: readonly string[],
  depthLeft: number,
): string {
  if (!isPlainObject(value)) throw new Error('not an object');
  const projected: Member[] = [];
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (v === undefined) continue;
    if (keep.includes(key)) projected.push([key, d.canon(v, depthLeft)]);
    else d.skip(key, v, d.limits.maxDepth - 2);
  }
  if (projected.length !== keep.length) throw new Error('missing member');
  return objectText(projected);
}

/**
 * Scalars in the §4.4 domain serialize the same under JSON.stringify and
 * RFC 8785 (well-formed strings, numbers per Number::toString with -0 as
 * "0"); null means "not a scalar in the domain by value", left to the slow
 * path (which also knows numbers vouched for by the JSON-text funnel).
 */
function scalarText(value: unknown): string | null {
  switch (typeof value) {
    case 'string':
      return isWellFormed(value) ? JSON.stringify(value) : null;
    case 'number':
      return isDomainNumber(value) ? JSON.stringify(value) : null;
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return value === null ? 'null' : null;
  }
}

/**
 * RFC 8785 object text from canonical member values: sorted by key in UTF-16
 * code units; keys are well-formed, so JSON.stringify gives their RFC 8785 form.
 */
function objectText(members: Member[]): string {
  members.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let out = '{';
  for (let i = 0; i < members.length; i++) {
    out += `${i > 0 ? ',' : ''}${quoted(members[i][0])}:${members[i][1]}`;
  }
  return `${out}}`;
}

// Projected keys come from the fixed §10.2 whitelists: quote each once.
const QUOTED = new Map<string, string>();

function quoted(key: string): string {
  let q = QUOTED.get(key);
  if (q === undefined) {
    q = JSON.stringify(key);
    if (QUOTED.size < 64) QUOTED.set(key, q);
  }
  return q;
}
