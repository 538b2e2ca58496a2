import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { config } from '../config';
import type { TicketForSlack } from './blocks';

export interface SlackTicket extends TicketForSlack {
  hostId: string;
  slackChannel: string | null;
  slackTs: string | null;
}

/** Base URL for links in Slack messages (jobs have no request to take it from). */
export function appUrl(): string {
  const cfg = config();
  return (cfg.APP_URL ?? `http://localhost:${cfg.PORT}`).replace(/\/+$/, '');
}

/** Who decided, as a message shows it: the person's name or email, or the kind of decider. */
function decider(d: {
  decidedByKind: string;
  user: { name: string | null; email: string } | null;
}): string {
  const person = d.user ? (d.user.name ?? d.user.email) : null;
  if (d.decidedByKind === 'slack') return `${person ?? 'a reviewer'} (in Slack)`;
  if (d.decidedByKind === 'resolver') return 'the automated resolver';
  if (d.decidedByKind === 'system') return 'the deadline';
  return person ?? d.decidedByKind;
}

/** Everything a Slack message needs about a ticket, or null if it is gone. */
export async function loadSlackTicket(
  db: PrismaClient,
  ticketId: string,
): Promise<SlackTicket | null> {
  const t = await db.approvalTicket.findUnique({
    where: { id: ticketId },
    select: {
      id: true,
      hostId: true,
      contextIdentity: true,
      interceptionPoint: true,
      agentId: true,
      agentLabel: true,
      toolName: true,
      reason: true,
      expiresAt: true,
      status: true,
      context: true,
      slackChannel: true,
      slackTs: true,
      host: { select: { name: true } },
      decision: {
        select: {
          decidedByKind: true,
          createdAt: true,
          note: true,
          user: { select: { name: true, email: true } },
        },
      },
    },
  });
  if (!t) return null;
  const { host, decision, ...rest } = t;
  return {
    ...rest,
    hostName: host.name,
    decision: decision
      ? { by: decider(decision), at: decision.createdAt, note: decision.note }
      : null,
  };
}
