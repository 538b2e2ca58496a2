import 'server-only';
import type { z } from 'zod';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { Logger } from '../logger';

/** What a handler gets besides its payload. */
export interface JobContext {
  db: PrismaClient;
  log: Logger;
  /** The BullMQ job id: the outbox row's dedupeKey. */
  jobId: string;
  /** 1 on the first run, then 2, 3… on retries. */
  attempt: number;
}

export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  /** The job name, also the OutboxEvent `kind`; must equal its registry key. */
  name: string;
  /** Re-parsed by the worker on every run: Redis content is not trusted. */
  schema: S;
  handler: (payload: z.output<S>, ctx: JobContext) => Promise<void>;
  /** Runs in total before the job lands in the failed set. */
  attempts?: number;
  /** First retry delay; doubles on every retry. */
  backoffMs?: number;
}

/** Identity function that keeps the schema's type for the handler. */
export function defineJob<S extends z.ZodType>(def: JobDefinition<S>): JobDefinition<S> {
  return def;
}
