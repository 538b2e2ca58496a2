import { canonicalJson } from './canonical-json.ts';
import { isPlainObject } from './plain.ts';
import type { Verdict } from './types.ts';
import { utf8Length } from './utf8.ts';
import { DECISIONS, DEFAULTS, HOST_ERROR_PREFIX, HOST_ERRORS } from './vocabulary.ts';

export type VerdictCheck =
  | { ok: true; verdict: Verdict }
  | { ok: false; reason: typeof HOST_ERRORS.verdictInvalid; message: string };

/**
 * §5 validation, exactly the listed failures; any of them makes the whole
 * verdict `{"decision":"deny","reason":"host_error:verdict_invalid"}`.
 * Transform paths are checked when applied (§5.2 has its own reasons).
 *
 * A null `reason`, `message`, `warnings` or `result_labels`, or a null member
 * of a warning, is the member absent: bindings omit nulls when they marshal
 * (§5.2), and the verdict schema types these members as nullable. The
 * verdict handed on has them removed, so aggregation, warning equality
 * (§7.3) and the record projection never see the two spellings. Members §5
 * types as objects (approval, transform, evidence) stay refused when null.
 */
export function validateVerdict(value: unknown): VerdictCheck {
  if (!isPlainObject(value)) return fail('verdict is not a JSON object');
  const v = withoutNulls(value);
  if (!(DECISIONS as readonly unknown[]).includes(v.decision)) {
    return fail('decision is absent or not allow|deny|transform');
  }
  if (v.reason !== undefined) {
    if (typeof v.reason !== 'string') return fail('reason is not a string');
    if (v.reason.startsWith(HOST_ERROR_PREFIX))
      return fail('reason uses the reserved host_error: prefix');
  }
  if (v.message !== undefined && typeof v.message !== 'string')
    return fail('message is not a string');
  if (v.warnings !== undefined) {
    if (!Array.isArray(v.warnings)) return fail('warnings is not an array');
    for (const w of v.warnings) {
      if (!isPlainObject(w)) return fail('warnings contains a non-object');
      if (w.reason !== undefined && typeof w.reason !== 'string')
        return fail('warning reason is not a string');
      if (w.message !== undefined && typeof w.message !== 'string') {
        return fail('warning message is not a string');
      }
    }
  }
  if (v.approval !== undefined) {
    if (v.decision !== 'deny') return fail('approval is only valid on deny');
    if (!isPlainObject(v.approval)) return fail('approval is not an object');
  }
  if (v.decision === 'transform') {
    if (!isPlainObject(v.transform)) return fail('transform decision without a transform object');
    if (typeof v.transform.path !== 'string') return fail('transform.path is not a string');
  } else if (v.transform !== undefined) {
    return fail('transform is only valid on a transform decision');
  }
  if (v.evidence !== undefined) {
    if (!isPlainObject(v.evidence)) return fail('evidence is not an object');
    // §5.3: the cap is on the RFC 8785 bytes, not on whatever the producer sent.
    let size: number;
    try {
      size = utf8Length(canonicalJson(v.evidence));
    } catch {
      return fail('evidence is not canonicalizable JSON');
    }
    if (size > DEFAULTS.evidenceMaxBytes) {
      return fail(`evidence exceeds ${DEFAULTS.evidenceMaxBytes} canonical bytes`);
    }
  }
  if (v.result_labels !== undefined) {
    if (!Array.isArray(v.result_labels) || v.result_labels.some((l) => typeof l !== 'string')) {
      return fail('result_labels is not an array of strings');
    }
  }
  return { ok: true, verdict: v as unknown as Verdict };
}

const NULLABLE = ['reason', 'message', 'warnings', 'result_labels'] as const;
const NULLABLE_IN_WARNING = ['reason', 'message'] as const;

/** The same verdict with its null optional members dropped; the input itself when it has none. */
function withoutNulls(v: Record<string, unknown>): Record<string, unknown> {
  const warnings = Array.isArray(v.warnings) ? v.warnings : null;
  const nullInWarning = warnings?.some(
    (w) => isPlainObject(w) && NULLABLE_IN_WARNING.some((k) => w[k] === null),
  );
  if (!nullInWarning && !NULLABLE.some((k) => v[k] === null)) return v;
  const out = { ...v };
  for (const k of NULLABLE) if (out[k] === null) delete out[k];
  if (warnings && nullInWarning) {
    out.warnings = warnings.map((w) => {
      if (!isPlainObject(w)) return w;
      const kept = { ...w };
      for (const k of NULLABLE_IN_WARNING) if (kept[k] === null) delete kept[k];
      return kept;
    });
  }
  return out;
}

function fail(message: string): VerdictCheck {
  return { ok: false, reason: HOST_ERRORS.verdictInvalid, message: `§5: ${message}` };
}

/** The verdict a host synthesizes for a reserved reason (§11). */
export function hostDeny(reason: string, message?: string): Verdict {
  return message === undefined
    ? { decision: 'deny', reason }
    : { decision: 'deny', reason, message };
}

export function isPermit(v: Verdict): boolean {
  return v.decision !== 'deny';
}

export function isLiftable(v: Verdict): boolean {
  return v.decision === 'deny' && v.approval !== undefined;
}

/** §5.1 severity: deny > deny+approval > transform > allow. */
export function severity(v: Verdict): number {
  if (v.decision === 'deny') return v.approval === undefined ? 3 : 2;
  return v.decision === 'transform' ? 1 : 0;
}
