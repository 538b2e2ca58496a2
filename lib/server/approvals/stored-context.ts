import 'server-only';
import { type AgentContext, canonicalJson } from '@checkpoint/agent-hooks';
import { db } from '../db';

/**
 * What a reviewer sees must be exactly what the identity covers (§9, §10.2).
 * A member named "__proto__" (or "constructor", "prototype") is ordinary
 * JSON, and the identity covers it; JSON.parse keeps it as an own property,
 * but anything that rebuilds objects by assignment (Object.assign, Prisma's
 * Json input) silently drops it. So the ticket keeps the context as text —
 * its canonical JSON, the very bytes the jcs-sha256 identity hashes — and
 * every reader (the page, the decision, the resolver) parses that text.
 */

/** The text stored for a context: its RFC 8785 canonical JSON. */
export function storedContextText(context: AgentContext): string {
  return canonicalJson(context);
}

/**
 * The context of a stored ticket, parsed from its exact text. A row written
 * before the text column existed (or straight to the table) has only the
 * Json column: that is read instead, it is all that is left.
 */
export async function storedContext(
  ticketId: string,
  contextJson: string | null,
): Promise<AgentContext> {
  if (contextJson !== null) return JSON.parse(contextJson) as AgentContext;
  const prisma = await db();
  const row = await prisma.approvalTicket.findUniqueOrThrow({
    where: { id: ticketId },
    select: { context: true },
  });
  return row.context as unknown as AgentContext;
}

/**
 * A ticket's context as the exact stored text (the download and copy on the
 * ticket page), or null when there is no such ticket.
 */
export async function storedContextTextOf(ticketId: string): Promise<string | null> {
  const prisma = await db();
  const row = await prisma.approvalTicket.findUnique({
    where: { id: ticketId },
    select: { contextJson: true, context: true },
  });
  if (!row) return null;
  return row.contextJson ?? JSON.stringify(row.context);
}
