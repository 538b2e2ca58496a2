/**
 * An independent jcs-sha256 (§10.2) for the scripted resolver's
 * `echo_recomputed`: it must not share code with the engine under test, or
 * a wrong projection in the engine would agree with itself.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

type Keep = true | readonly string[];

const CORE: Record<string, Keep> = {
  spec: true,
  interception_point: true,
  timestamp: true,
  sequence: true,
  agent: ['id', 'framework'],
  session: ['id'],
  target: true,
};

/** §10.2: the required + conditional projection with its nested whitelists. */
const CONDITIONAL: Record<string, Record<string, Keep>> = {
  agent_startup: { agent_init: ['tools_registered'] },
  input: { input: ['content', 'role'] },
  pre_model_call: { model: ['id'], messages: true },
  post_model_call: { model: ['id'], response: ['content', 'tool_calls', 'finish_reason'] },
  pre_tool_call: { tool_call: ['id', 'name', 'args'] },
  post_tool_call: { tool_call: ['id', 'name', 'args'], tool_result: ['value', 'is_error'] },
  output: { output: ['content'] },
  agent_shutdown: { summary: ['reason'] },
};

export function ctkJcsSha256(context: unknown): string {
  const ctx = JSON.parse(JSON.stringify(context)) as Record<string, unknown>;
  const point = String(ctx.interception_point);
  const whitelist = { ...CORE, ...(CONDITIONAL[point] ?? {}) };
  const projected: Record<string, unknown> = {};
  for (const [key, keep] of Object.entries(whitelist)) {
    if (!Object.hasOwn(ctx, key)) continue;
    const value = ctx[key];
    if (keep === true || typeof value !== 'object' || value === null || Array.isArray(value)) {
      projected[key] = value;
      continue;
    }
    const sub: Record<string, unknown> = {};
    for (const k of keep)
      if (Object.hasOwn(value, k)) sub[k] = (value as Record<string, unknown>)[k];
    projected[key] = sub;
  }
  const text = canonicalize(projected);
  if (text === undefined) throw new Error('context is not canonicalizable');
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}
