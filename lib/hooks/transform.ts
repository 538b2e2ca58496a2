import { carryVouches } from './number-domain.ts';
import { type PathSegment, parseTransformPath } from './path.ts';
import { isPlainObject } from './plain.ts';
import type { AgentContext, TransformSpec } from './types.ts';
import {
  HOST_ERRORS,
  type HostErrorReason,
  type InterceptionPoint,
  TRANSFORM_FORBIDDEN_POINTS,
} from './vocabulary.ts';

/** §3 table: where `target` lives in each point's conditional fields. */
export const TARGET_LOCATIONS: Readonly<Record<InterceptionPoint, readonly string[]>> =
  Object.freeze({
    agent_startup: ['agent_init'],
    input: ['input'],
    pre_model_call: ['messages'],
    post_model_call: ['response'],
    pre_tool_call: ['tool_call', 'args'],
    post_tool_call: ['tool_result', 'value'],
    output: ['output'],
    agent_shutdown: ['summary'],
  });

export type TransformOutcome =
  | { ok: true; context: AgentContext; target: unknown }
  | { ok: false; reason: HostErrorReason; message: string };

/**
 * Apply a §5.2 transform without mutating anything: the nodes along the path
 * are copied, the rest is shared. The new target is written back into the
 * conditional field it aliases (§4.3), so `context.target` and e.g.
 * `context.tool_call.args` stay the same object.
 */
export function applyTransform(context: AgentContext, transform: TransformSpec): TransformOutcome {
  const point = context.interception_point;
  if ((TRANSFORM_FORBIDDEN_POINTS as readonly string[]).includes(point)) {
    return {
      ok: false,
      reason: HOST_ERRORS.transformTargetForbidden,
      message: `${point} forbids transform (§4.3)`,
    };
  }
  const parsed = parseTransformPath(transform.path);
  if (!parsed.ok) return parsed;
  const value = transform.value === undefined ? null : transform.value;
  const replaced = replaceAt(context.target, parsed.segments, 0, value);
  if (!replaced.ok) {
    return {
      ok: false,
      reason: HOST_ERRORS.transformInvalid,
      message: `transform.path does not resolve at segment ${replaced.at} (§5.2)`,
    };
  }
  return { ok: true, context: withTarget(context, replaced.value), target: replaced.value };
}

/** A context whose target (and the conditional field it aliases) is `target`. */
export function withTarget(context: AgentContext, target: unknown): AgentContext {
  const location = TARGET_LOCATIONS[context.interception_point];
  const next = copied(context, { ...context, target }) as AgentContext;
  if (location.length === 1) {
    next[location[0]] = target;
  } else {
    const held = context[location[0]];
    const parent: Record<string, unknown> = isPlainObject(held) ? held : {};
    next[location[0]] = copied(parent, { ...parent, [location[1]]: target });
  }
  return next;
}

type Replaced = { ok: true; value: unknown } | { ok: false; at: number };

function replaceAt(
  node: unknown,
  path: readonly PathSegment[],
  i: number,
  value: unknown,
): Replaced {
  if (i === path.length) return { ok: true, value };
  const seg = path[i];
  if (seg.kind === 'index') {
    if (!Array.isArray(node) || seg.index >= node.length) return { ok: false, at: i };
    const child = replaceAt(node[seg.index], path, i + 1, value);
    if (!child.ok) return child;
    const copy = copied(node, node.slice());
    copy[seg.index] = child.value;
    return { ok: true, value: copy };
  }
  if (!isPlainObject(node) || !Object.hasOwn(node, seg.name)) return { ok: false, at: i };
  const child = replaceAt(node[seg.name], path, i + 1, value);
  if (!child.ok) return child;
  return { ok: true, value: copied(node, { ...node, [seg.name]: child.value }) };
}

/**
 * A copy on the way to the replaced location keeps the JSON-text token
 * verdicts of the members it carries over (§10.2, number-domain.ts), so a
 * transform of one member never makes a parsed sibling uncanonicalizable.
 */
export function copied<T extends object>(from: object, to: T): T {
  carryVouches(from, to);
  return to;
}

/** Resolve a parsed path against a value; `undefined` when it does not resolve. */
export function resolvePath(
  node: unknown,
  path: readonly PathSegment[],
): { value: unknown } | null {
  let cur = node;
  for (const seg of path) {
    if (seg.kind === 'index') {
      if (!Array.isArray(cur) || seg.index >= cur.length) return null;
      cur = cur[seg.index];
    } else {
      if (!isPlainObject(cur) || !Object.hasOwn(cur, seg.name)) return null;
      cur = cur[seg.name];
    }
  }
  return { value: cur };
}
