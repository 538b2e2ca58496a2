import type { Composition, RecordComposition, Verdict, Warning } from './types.ts';
import { utf8Length } from './utf8.ts';
import { DEFAULTS } from './vocabulary.ts';

const ELLIPSIS = '…';
const ELLIPSIS_BYTES = 3;

/**
 * Truncate to at most `maxBytes` UTF-8 bytes, ellipsis included, never
 * splitting a code point (§10.3).
 */
export function truncateUtf8(text: string, maxBytes = DEFAULTS.recordMessageMaxBytes): string {
  // Fast path: at most 3 bytes per UTF-16 unit.
  if (text.length * 3 <= maxBytes || utf8Length(text) <= maxBytes) return text;
  const budget = maxBytes - ELLIPSIS_BYTES;
  let bytes = 0;
  let end = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + size > budget) break;
    bytes += size;
    end += ch.length;
  }
  return text.slice(0, end) + ELLIPSIS;
}

/**
 * The payload-free projection of a verdict for the record (§10.3): messages
 * truncated, approval stripped to `{}`, transform.value dropped, evidence kept.
 */
export function projectVerdictForRecord(verdict: Verdict): Verdict {
  const out: Verdict = { decision: verdict.decision };
  if (verdict.reason !== undefined) out.reason = verdict.reason;
  if (verdict.message !== undefined) out.message = truncateUtf8(verdict.message);
  if (verdict.warnings !== undefined) out.warnings = verdict.warnings.map(projectWarning);
  if (verdict.approval !== undefined) out.approval = {};
  if (verdict.transform !== undefined) out.transform = { path: verdict.transform.path };
  if (verdict.evidence !== undefined) out.evidence = structuredClone(verdict.evidence);
  if (verdict.result_labels !== undefined) out.result_labels = verdict.result_labels.slice();
  return out;
}

function projectWarning(w: Warning): Warning {
  const out: Warning = {};
  if (w.reason !== undefined) out.reason = w.reason;
  if (w.message !== undefined) out.message = truncateUtf8(w.message);
  return out;
}

/** §7.2 knob defaults, filled in; knobs the profile never consults are absent (§10.3). */
export function resolveComposition(c: Composition): RecordComposition {
  switch (c.profile) {
    case 'sequential/first_deny':
      return { profile: c.profile, on_approval: c.on_approval ?? 'stop' };
    case 'sequential/run_all':
      return { profile: c.profile };
    case 'parallel/strictest':
      return { profile: c.profile, on_transform_conflict: c.on_transform_conflict ?? 'deny' };
    // Any transform is already a disagreement here, so on_transform_conflict is never consulted.
    case 'parallel/unanimous':
      return { profile: c.profile, on_disagreement: c.on_disagreement ?? 'deny' };
  }
}

export function isSequential(c: Composition): boolean {
  return c.profile.startsWith('sequential/');
}
