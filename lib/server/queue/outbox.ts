import 'server-only';
import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { AppError, type ErrorCode } from '../http/api-error';
import { type JobName, type JobPayload, jobDefinitions } from '../jobs/definitions';

/**
 * The transactional outbox: work bound for the queue is a row written in the
 * same transaction as the change that caused it, so it exists if and only if
 * the change committed. The relay (./relay.ts) moves rows to BullMQ.
 * Payloads are checked against the job definitions only (never the
 * handlers), so any service may import this module.
 */

export type OutboxErrorCode = Extract<
  ErrorCode,
  'outbox_kind_unknown' | 'outbox_payload_invalid' | 'outbox_dedupe_key_invalid'
>;

/** A producer's bug (status 500): route() logs it and answers a bare `internal`. */
export class OutboxError extends AppError {
  constructor(
    override readonly code: OutboxErrorCode,
    message: string,
  ) {
    super(code, message);
    this.name = 'OutboxError';
  }
}

export interface OutboxInput<N extends JobName = JobName> {
  kind: N;
  payload: JobPayload<N>;
  /**
   * Becomes the BullMQ jobId, so the same work is never queued twice. Choose
   * it from what makes the work unique (`slack.post.<ticketId>`).
   */
  dedupeKey: string;
  /** Not relayed before this time. */
  availableAt?: Date;
}

type Tx = Prisma.TransactionClient | PrismaClient;

// BullMQ refuses custom ids that contain ':' or are integers.
const DEDUPE_KEY = /^(?!\d+$)[A-Za-z0-9][A-Za-z0-9._\-/]{0,199}$/;

/**
 * Writes an OutboxEvent inside the caller's transaction. Returns false when a
 * row with the same dedupeKey already exists (nothing is written, and the
 * caller's transaction is not aborted). Throws OutboxError, before writing,
 * on an unknown kind, a payload its schema rejects, or an unusable key.
 * Call `nudgeRelay()` after the transaction commits.
 */
export async function enqueueInTx<N extends JobName>(
  tx: Tx,
  input: OutboxInput<N>,
): Promise<boolean> {
  const data = validateOutboxInput(input);
  const res = await tx.outboxEvent.createMany({ data: [data], skipDuplicates: true });
  return res.count === 1;
}

/**
 * Runs `fn` in a transaction and nudges the relay once it has committed: the
 * usual way to make a change together with the work it causes.
 */
export async function commitWithOutbox<T>(
  db: PrismaClient,
  fn: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  const result = await db.$transaction(fn);
  nudgeRelay();
  return result;
}

/** A standalone enqueue (its own implicit transaction), then a relay nudge. */
export async function enqueue<N extends JobName>(
  db: PrismaClient,
  input: OutboxInput<N>,
): Promise<boolean> {
  const created = await enqueueInTx(db, input);
  if (created) nudgeRelay();
  return created;
}

export function validateOutboxInput(input: OutboxInput<JobName>) {
  if (!Object.hasOwn(jobDefinitions, input.kind)) {
    throw new OutboxError('outbox_kind_unknown', `unknown job kind: ${String(input.kind)}`);
  }
  if (typeof input.dedupeKey !== 'string' || !DEDUPE_KEY.test(input.dedupeKey)) {
    throw new OutboxError(
      'outbox_dedupe_key_invalid',
      'dedupeKey must be 1-200 characters of [A-Za-z0-9._-/], not only digits',
    );
  }
  const parsed = jobDefinitions[input.kind].schema.safeParse(input.payload);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => i.path.join('.') || '(root)').join(', ');
    throw new OutboxError('outbox_payload_invalid', `invalid ${input.kind} payload at ${where}`);
  }
  return {
    kind: input.kind,
    payload: parsed.data as Prisma.InputJsonValue,
    dedupeKey: input.dedupeKey,
    // Always set here: the relay compares against UTC, and the column's SQL
    // default would follow the database session's time zone.
    availableAt: input.availableAt ?? new Date(),
  };
}

type Nudge = () => void;
const g = globalThis as unknown as { __checkpointRelayNudges?: Set<Nudge> };
const nudges: Set<Nudge> = g.__checkpointRelayNudges ?? new Set();
g.__checkpointRelayNudges = nudges;

/** Asks the relays of this process to run now instead of at their next tick. */
export function nudgeRelay(): void {
  for (const n of nudges) n();
}

/** Registers a relay's nudge; returns the unregister function. */
export function onRelayNudge(n: Nudge): () => void {
  nudges.add(n);
  return () => nudges.delete(n);
}
