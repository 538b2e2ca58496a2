import { truncateUtf8 } from './record.ts';
import type { ApprovalConsultation } from './types.ts';

/** Checkpoint's bounds on `deny_set` (lib/server/approvals/validate-deny-set.ts). */
const MAX_STRING_BYTES = 256;
const MAX_VERDICTS = 1000;

/**
 * The `deny_set` member sent next to an ApprovalRequest: the engine's
 * consultation state, fitted to the app's bounds. Shared by the HTTP resolver
 * (lib/client) and the server's in-process queue resolver. It is display-only, so a
 * long reason or name is cut (§10.3 style, with …) rather than letting the
 * app refuse the request and fail the consultation; a deny set too large to
 * send is left out, and the reviewer sees the record's summary later instead.
 */
export function denySetOf(consultation: ApprovalConsultation | undefined) {
  if (!consultation || consultation.verdicts.length > MAX_VERDICTS) return undefined;
  return {
    composition: { ...consultation.composition },
    interceptors_registered: consultation.interceptors_registered,
    verdicts: consultation.verdicts.map((v) => ({
      index: v.index,
      decision: v.decision,
      ...(v.reason !== undefined ? { reason: truncateUtf8(v.reason, MAX_STRING_BYTES) } : {}),
      ...(v.name !== undefined ? { name: truncateUtf8(v.name, MAX_STRING_BYTES) } : {}),
    })),
    decided_by: consultation.decided_by,
    fold_truncated: consultation.fold_truncated,
  } satisfies ApprovalConsultation;
}
