import 'server-only';
import { z } from 'zod';
import { type ApprovalConsultation, DECISIONS } from '@checkpoint/agent-hooks';
import { IntakeError } from './errors';

/**
 * The optional `deny_set` of `POST /api/v1/approvals`: the engine's
 * ApprovalConsultation (the payload-free composition state when the seam was
 * consulted), so that reviewers see the verdicts summary and `fold_truncated`
 * while the ticket is pending, before the emission's record exists.
 *
 * It is display-only and binds nothing, but it is stored and shown, so it is
 * held to the record's own rules: closed members everywhere (nothing but
 * §10.3 summaries can ride along: payload-free), the closed §5 and §7.2
 * vocabularies, exactly the knobs the profile consults (§10.3), bounded
 * strings and counts, and indexes that describe one emission.
 */

/** §10.3 bounds a record's free text at 256 UTF-8 bytes; a summary's strings get the same. */
export const DENY_SET_MAX_STRING_BYTES = 256;
export const DENY_SET_MAX_VERDICTS = 1000;
/** Stored counts stay within a 32-bit column, like records' (records/limits.ts). */
const MAX_COUNT = 2_147_483_647;

/** What is stored on the ticket; `decided_by` is absent when the host did not send it. */
export type DenySet = Omit<ApprovalConsultation, 'decided_by'> & { decided_by?: number | null };

const bounded = z
  .string()
  .refine((s) => Buffer.byteLength(s, 'utf8') <= DENY_SET_MAX_STRING_BYTES, {
    message: `at most ${DENY_SET_MAX_STRING_BYTES} UTF-8 bytes`,
  });
const index = z.number().int().min(0).max(MAX_COUNT);

/** §7.2 profiles with the knobs each consults, and no other (§10.3). */
const composition = z.discriminatedUnion('profile', [
  z.strictObject({
    profile: z.literal('sequential/first_deny'),
    on_approval: z.enum(['stop', 'resume']),
  }),
  z.strictObject({ profile: z.literal('sequential/run_all') }),
  z.strictObject({
    profile: z.literal('parallel/strictest'),
    on_transform_conflict: z.enum(['deny', 'approval']),
  }),
  z.strictObject({
    profile: z.literal('parallel/unanimous'),
    on_disagreement: z.enum(['deny', 'approval']),
  }),
]);

const summary = z.strictObject({
  index,
  decision: z.enum(DECISIONS),
  reason: bounded.optional(),
  name: bounded.optional(),
});

/** The `deny_set` schema: parsed here, and shown by the OpenAPI document (lib/server/openapi). */
export const denySetSchema = z
  .strictObject({
    composition,
    interceptors_registered: index.min(1),
    verdicts: z.array(summary).max(DENY_SET_MAX_VERDICTS),
    decided_by: index.nullable().optional(),
    fold_truncated: z.boolean(),
  })
  .superRefine((d, ctx) => {
    const seen = new Set<number>();
    d.verdicts.forEach((v, i) => {
      if (v.index >= d.interceptors_registered) {
        ctx.addIssue({
          code: 'custom',
          path: ['verdicts', i, 'index'],
          message: 'must be below interceptors_registered',
        });
      }
      if (seen.has(v.index)) {
        ctx.addIssue({
          code: 'custom',
          path: ['verdicts', i, 'index'],
          message: 'appears twice',
        });
      }
      seen.add(v.index);
    });
    if (typeof d.decided_by === 'number') {
      const consulted = d.verdicts.find((v) => v.index === d.decided_by);
      if (consulted?.decision !== 'deny') {
        ctx.addIssue({
          code: 'custom',
          path: ['decided_by'],
          message: 'must be the index of a deny in verdicts (§7.6)',
        });
      }
    }
    // §7.4/§10.3: only a sequential fold can leave interceptors uninvoked.
    if (
      d.fold_truncated &&
      (!d.composition.profile.startsWith('sequential/') ||
        d.verdicts.length >= d.interceptors_registered)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['fold_truncated'],
        message: 'true needs a sequential profile and interceptors left to run (§7.4)',
      });
    }
  });

/** Checks a request's `deny_set`; throws IntakeError `deny_set_invalid` (400), naming members only. */
export function parseDenySet(value: unknown): DenySet {
  const parsed = denySetSchema.safeParse(value);
  if (parsed.success) return parsed.data as DenySet;
  const issues = parsed.error.issues.slice(0, 3).map((issue) => {
    const at = ['deny_set', ...issue.path.map(String)].join('.');
    return `${at}: ${issue.message}`;
  });
  throw new IntakeError('deny_set_invalid', `${issues.join('; ')}.`);
}
