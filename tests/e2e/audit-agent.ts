import { HttpApprovalResolver, HttpRecordSink } from '@/lib/client';
import { createHost, Verdict } from '@/lib/hooks';

/**
 * A small remote agent host for the audit e2e test: the engine with a
 * transfer-limit interceptor and a no-deletes rule, `lib/client`'s
 * HttpApprovalResolver, and its HttpRecordSink sending every §10.3 record
 * to POST /api/v1/records, exactly as a real host would.
 */
export function auditAgent(opts: {
  baseUrl: string;
  apiKey: string;
  onTicket: (id: string) => void;
}) {
  const records = new HttpRecordSink({
    baseUrl: opts.baseUrl,
    apiKey: opts.apiKey,
    agentId: 'audit-e2e-agent',
    flushIntervalMs: 200,
  });
  const host = createHost({
    agent: { id: 'audit-e2e-agent', framework: 'e2e' },
    interceptors: [
      {
        name: 'limits',
        intercept: (ctx) => {
          const call = ctx.tool_call as { name: string; args: Record<string, unknown> } | undefined;
          if (ctx.interception_point !== 'pre_tool_call' || !call) return Verdict.allow();
          if (call.name === 'wire_transfer' && Number(call.args.amount) > 10_000) {
            return Verdict.escalate('amount_over_threshold', {
              message: 'Transfers over 10,000 need a reviewer.',
            });
          }
          return Verdict.allow();
        },
      },
      {
        name: 'no-deletes',
        intercept: (ctx) => {
          const call = ctx.tool_call as { name: string } | undefined;
          if (ctx.interception_point === 'pre_tool_call' && call?.name === 'delete_file') {
            return { decision: 'deny', reason: 'destructive_tool' };
          }
          return Verdict.allow();
        },
      },
    ],
    resolver: HttpApprovalResolver({
      baseUrl: opts.baseUrl,
      apiKey: opts.apiKey,
      timeoutMs: 60_000,
      pollSeconds: 2,
      agentLabel: 'Audit e2e agent',
      onTicket: (t) => opts.onTicket(t.id),
    }),
    sinks: [records.sink],
  });

  /** One session: a transfer that needs approval, a refused delete; then every record is flushed. */
  async function run(sessionId: string) {
    const session = host.session({ id: sessionId });
    await session.start({ tools_registered: ['wire_transfer', 'delete_file'] });
    // §3.1: a tool call belongs to a turn that an input began.
    await session.input('Pay invoice 1142 and clean up the old reports.');
    const transfer = await session.callTool(
      { id: `${sessionId}-t`, name: 'wire_transfer', args: { amount: 25_000, currency: 'EUR' } },
      () => ({ ok: true }),
    );
    const deletion = await session.callTool(
      { id: `${sessionId}-d`, name: 'delete_file', args: { path: '/srv/x' } },
      () => ({ ok: true }),
    );
    await session.output('Paid; the reports were kept.');
    await session.shutdown();
    const stats = await records.close();
    return { transfer: transfer.status, deletion: deletion.status, stats };
  }
  return { run };
}
