import { HttpApprovalResolver } from '@checkpoint/client';
import { createHost, redactPaths, Verdict } from '@checkpoint/agent-hooks';

/**
 * A small remote agent host for the inbox's end-to-end test: the engine
 * with an interceptor that escalates, `lib/client`'s HttpApprovalResolver
 * against the test server, and tools that remember what they received.
 */
export function testAgent(opts: { baseUrl: string; apiKey: string; redact: string[] }) {
  const received: { tool: string; args: Record<string, unknown> }[] = [];
  const host = createHost({
    agent: { id: 'mail-bot', framework: 'e2e' },
    interceptors: [
      {
        name: 'limits',
        intercept: (ctx) => {
          const call = ctx.tool_call as { name: string; args: Record<string, unknown> } | undefined;
          if (ctx.interception_point !== 'pre_tool_call' || !call) return Verdict.allow();
          if (call.name === 'send_email') {
            return Verdict.escalate('external_recipient', {
              message: 'Mail to an outside address.',
              warnings: [{ reason: 'external', message: 'The recipient is outside the company.' }],
              evidence: {
                artefact: 'policy/mail.rego#L3',
                verification_pointers: { policy: 'https://policies.invalid/mail/v1' },
              },
            });
          }
          return Verdict.allow();
        },
      },
    ],
    // §9: the host redacts before computing the identity, as the server demands.
    redactor: redactPaths(opts.redact, { namespace: 'checkpoint' }),
    resolver: HttpApprovalResolver({
      baseUrl: opts.baseUrl,
      apiKey: opts.apiKey,
      timeoutMs: 120_000,
      pollSeconds: 5,
      agentLabel: 'Mail bot',
      // Issue 13: an answer without a receipt that verifies against the app's keys is unresolved.
      receipts: 'require',
    }),
  });

  /** One session calling one tool; resolves when the tool ran or was refused. */
  async function call(sessionId: string, tool: string, args: Record<string, unknown>) {
    const session = host.session({ id: sessionId });
    await session.start({ tools_registered: [tool] });
    await session.input(`please ${tool}`);
    const outcome = await session.callTool({ id: `${sessionId}-call`, name: tool, args }, (a) => {
      received.push({ tool, args: a });
      return { ok: true };
    });
    await session.shutdown();
    return outcome;
  }
  return { call, received };
}
