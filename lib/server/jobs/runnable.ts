import 'server-only';
import type { z } from 'zod';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { Logger } from '../logger';
import type { HostSlots } from '../webhooks/host-slots';
import type { JobDefinition } from './definitions';

/** What a handler gets besides its payload. */
export interface JobContext {
  db: PrismaClient;
  log: Logger;
  /** The BullMQ job id: the outbox row's dedupeKey. */
  jobId: string;
  /** 1 on the first run, then 2, 3… on retries. */
  attempt: number;
  /**
   * The per-host limit of outbound webhook calls (the worker's; absent when
   * a test runs a handler directly). A handler refused a slot throws
   * HostBusyError and the worker postpones the job without counting a try.
   */
  hostSlots?: HostSlots;
}

export type JobHandler<S extends z.ZodType> = (
  payload: z.output<S>,
  ctx: JobContext,
) => Promise<void>;

/** A definition with the code that runs it: what the worker's registry holds. */
export interface RunnableJob<S extends z.ZodType = z.ZodType> extends JobDefinition<S> {
  handler: JobHandler<S>;
}

/** Attaches a handler to a definition; the payload type comes from its schema. */
export function withHandler<S extends z.ZodType>(
  def: JobDefinition<S>,
  handler: JobHandler<S>,
): RunnableJob<S> {
  return { ...def, handler };
}
