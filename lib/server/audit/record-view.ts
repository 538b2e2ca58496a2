import 'server-only';

/**
 * What the timeline reads out of a stored §10.3 record beyond its indexed
 * columns. The record was validated at ingest, but it is read defensively:
 * a field of the wrong shape is left out, never a reason to fail the page.
 */
export type VerdictSummary = { index: number; decision: string; reason?: string; name?: string };
export type WarningView = { reason: string; message?: string };

export type RecordView = {
  /** The combined verdict's (truncated, §10.3) message. */
  message: string | null;
  warnings: WarningView[];
  verdicts: VerdictSummary[];
  interceptorsRegistered: number | null;
  profile: string | null;
  /** True when the combined verdict carried an approval block (a liftable deny). */
  liftable: boolean;
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function readRecordView(record: unknown): RecordView {
  const r = isObject(record) ? record : {};
  const verdict = isObject(r.verdict) ? r.verdict : {};
  const warnings = Array.isArray(verdict.warnings)
    ? verdict.warnings.flatMap((w): WarningView[] => {
        if (!isObject(w) || !str(w.reason)) return [];
        const message = str(w.message);
        return [{ reason: w.reason as string, ...(message ? { message } : {}) }];
      })
    : [];
  const verdicts = Array.isArray(r.verdicts)
    ? r.verdicts.flatMap((v): VerdictSummary[] => {
        if (!isObject(v) || typeof v.index !== 'number' || !str(v.decision)) return [];
        const reason = str(v.reason);
        const name = str(v.name);
        return [
          {
            index: v.index,
            decision: v.decision as string,
            ...(reason ? { reason } : {}),
            ...(name ? { name } : {}),
          },
        ];
      })
    : [];
  const composition = isObject(r.composition) ? r.composition : {};
  return {
    message: str(verdict.message) ?? null,
    warnings,
    verdicts,
    interceptorsRegistered:
      typeof r.interceptors_registered === 'number' ? r.interceptors_registered : null,
    profile: str(composition.profile) ?? null,
    liftable: isObject(verdict.approval),
  };
}
