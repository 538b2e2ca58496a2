import 'server-only';
import {
  type ApprovalRedactor,
  createHost,
  type Host,
  type HostOptions,
  redactPaths,
} from '@checkpoint/agent-hooks';
import { db } from '../db';
import { ensureBuiltInHost } from '../hosts/builtin';
import { inProcessRecordSink } from '../records/in-process-sink';
import { QueueResolver, type QueueResolverOptions } from './queue-resolver';

/** Slack above the longest ticket deadline, so the ticket's expiry answers first. */
const RESOLVER_TIMEOUT_SLACK_MS = 60_000;

export type EmbeddedHostOptions = Omit<HostOptions, 'resolver' | 'redactor' | 'resolverTimeoutMs'> &
  Pick<QueueResolverOptions, 'ticketTimeoutMs' | 'sessionLabel' | 'agentLabel' | 'onTicket'>;

/**
 * A lib/hooks Host for emissions that run inside this app: liftable denies
 * become tickets of the built-in host through the QueueResolver. Its approval
 * redactor applies the built-in host's redaction paths, so the identity the
 * engine computes is the one the server recomputes over the stored context.
 * Its records go to the audit store through the in-process record sink.
 */
export async function createEmbeddedHost(options: EmbeddedHostOptions): Promise<Host> {
  const prisma = await db();
  const { id: hostId } = await ensureBuiltInHost(prisma);
  const settings = await prisma.host.findUniqueOrThrow({
    where: { id: hostId },
    select: { redactionPaths: true, maxTimeoutMs: true },
  });
  const { ticketTimeoutMs, sessionLabel, agentLabel, onTicket, ...hostOptions } = options;
  return createHost({
    ...hostOptions,
    // Every in-process emission's record lands in the audit store (issue 7).
    sinks: [...(hostOptions.sinks ?? []), inProcessRecordSink(hostOptions.agent.id).sink],
    resolver: QueueResolver({ hostId, ticketTimeoutMs, sessionLabel, agentLabel, onTicket }),
    redactor: hostRedactor(settings.redactionPaths),
    resolverTimeoutMs: settings.maxTimeoutMs + RESOLVER_TIMEOUT_SLACK_MS,
  });
}

/**
 * The built-in host's approval redactor. A stored path outside the §5.2
 * grammar (saved under an older, looser grammar) cannot be applied: the
 * redactor then raises on every consultation, which the engine fails closed
 * as `host_error:approval_resolver_failed` (§9) — nothing unredacted leaves.
 */
function hostRedactor(paths: readonly string[]): ApprovalRedactor | undefined {
  if (paths.length === 0) return undefined;
  try {
    return redactPaths(paths);
  } catch (error) {
    return () => {
      throw error;
    };
  }
}
