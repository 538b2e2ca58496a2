/**
 * An agent host outside the app: a refund bot whose refunds over a limit
 * need a reviewer. It installs the engine and the client from their packed
 * tarballs (see README.md) and talks to Checkpoint only over HTTP:
 * HttpApprovalResolver for the §9 approval seam, HttpRecordSink for the
 * §10.3 interception records.
 *
 *   CHECKPOINT_URL=http://localhost:3000 CHECKPOINT_API_KEY=ck_… npm start
 *
 * Prints one JSON object per line (`ticket`, then `done`), so that a script
 * or a test can follow it.
 */
import { createHost, Verdict } from '@checkpoint/agent-hooks';
import { HttpApprovalResolver, HttpRecordSink } from '@checkpoint/client';

const baseUrl = process.env.CHECKPOINT_URL ?? 'http://localhost:3000';
const apiKey = process.env.CHECKPOINT_API_KEY ?? '';
const amount = Number(process.env.REFUND_AMOUNT ?? 250);
const waitMs = Number(process.env.CHECKPOINT_WAIT_MS ?? 120_000);
const LIMIT = 100;

if (!apiKey.startsWith('ck_')) {
  console.error('Set CHECKPOINT_API_KEY to a host API key (ck_…) from /hosts.');
  process.exit(2);
}

const print = (event: string, body: Record<string, unknown>) =>
  console.log(JSON.stringify({ event, ...body }));

const records = new HttpRecordSink({ baseUrl, apiKey, agentId: 'refund-bot' });
const host = createHost({
  agent: { id: 'refund-bot', framework: 'checkpoint-example' },
  interceptors: [
    {
      name: 'refund-limit',
      intercept: (ctx) => {
        const call = ctx.tool_call as { name: string; args: { amount?: number } } | undefined;
        if (ctx.interception_point !== 'pre_tool_call' || call?.name !== 'issue_refund') {
          return Verdict.allow();
        }
        if ((call.args.amount ?? 0) <= LIMIT) return Verdict.allow();
        return Verdict.escalate('refund_over_limit', {
          message: `Refunds over ${LIMIT} need a reviewer.`,
        });
      },
    },
  ],
  resolver: HttpApprovalResolver({
    baseUrl,
    apiKey,
    timeoutMs: waitMs,
    pollSeconds: 5,
    agentLabel: 'Refund bot (example host)',
    onTicket: (ticket) => print('ticket', { id: ticket.id, ui: ticket.links.ui }),
  }),
  // Above the resolver's own deadline, so an unanswered ticket ends as `unresolved`.
  resolverTimeoutMs: waitMs + 10_000,
  sinks: [records.sink],
});

const sessionId = `refund-${Date.now().toString(36)}`;
const session = host.session({ id: sessionId });
await session.start({ tools_registered: ['issue_refund'] });
await session.input('Please refund order 1042.');
const outcome = await session.callTool(
  { id: 'call-1', name: 'issue_refund', args: { order: '1042', amount } },
  (args) => ({ refunded: args.amount, order: args.order }),
);
await session.shutdown();
const sent = await records.close();

print('done', {
  session: sessionId,
  status: outcome.status,
  ...(outcome.status === 'completed'
    ? { result: outcome.value, args: outcome.args }
    : { reason: outcome.reason }),
  records: sent,
});
