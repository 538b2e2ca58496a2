/**
 * The one answer to "is this a context?" for tools (§4, §10.2). Acceptance is
 * the engine's: its §4 envelope check, then the jcs-sha256 identity, which
 * refuses what is outside the §4.4 value domain. That is what an emission
 * and the HTTP intake do, so the CLI can neither refuse a context they take
 * nor hash one they refuse.
 *
 * The schema, with formats asserted, only adds warnings: an optional member
 * in a malformed format (`session.started_at: "IGNORED"`, a non-hex trace id)
 * sits outside the identity projection and changes nothing the engine does.
 *
 * It lives with the CLI, not in spec/: it needs the engine, and spec/ depends
 * on no code of the project (tests/unit/boundaries.test.ts).
 */
import {
  type AgentContext,
  HOST_ERRORS,
  HooksError,
  jcsSha256,
  validateContextEnvelope,
} from '@checkpoint/agent-hooks';
import { validateAgainst } from '../spec';

export type ContextCheck =
  | { ok: true; context: AgentContext; identity: string; warnings: string[] }
  | { ok: false; reason: typeof HOST_ERRORS.contextInvalid; message: string };

// §4.5: W3C Trace Context ids are lowercase hex of a fixed width.
const TRACE_FORMATS: [member: 'trace_id' | 'span_id', pattern: RegExp, what: string][] = [
  ['trace_id', /^[0-9a-f]{32}$/, '32 lowercase hex digits'],
  ['span_id', /^[0-9a-f]{16}$/, '16 lowercase hex digits'],
];

export function checkContext(value: unknown): ContextCheck {
  const envelope = validateContextEnvelope(value);
  if (!envelope.ok) return envelope;
  let identity: string;
  try {
    identity = jcsSha256.compute(envelope.context);
  } catch (error) {
    if (!(error instanceof HooksError)) throw error;
    return { ok: false, reason: HOST_ERRORS.contextInvalid, message: error.message };
  }
  return { ok: true, context: envelope.context, identity, warnings: contextWarnings(value) };
}

/** What a stricter reader would flag, one line per finding, never quoting a value. */
export function contextWarnings(value: unknown): string[] {
  const schema = validateAgainst('context', value, { assertFormats: true });
  const warnings = schema.ok ? [] : [...schema.errors];
  const trace = (value as { trace?: Record<string, unknown> }).trace;
  for (const [member, pattern, what] of TRACE_FORMATS) {
    const id = trace?.[member];
    if (typeof id === 'string' && !pattern.test(id)) {
      warnings.push(`/trace/${member} is not ${what} (§4.5 W3C Trace Context)`);
    }
  }
  return warnings;
}
