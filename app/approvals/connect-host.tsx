import Link from 'next/link';

const REQUEST = `POST /api/v1/approvals
Authorization: Bearer <host API key>
Content-Type: application/json

{
  "context_identity": "sha256:…",
  "interception_point": "pre_tool_call",
  "verdict": { "decision": "deny", "reason": "large_transfer", "approval": {} },
  "context": { …the AgentContext, redacted as your policy says… },
  "session": "optional label", "agent": "optional label", "timeout_ms": 900000
}`;

/** The queue's empty state: nothing has ever arrived, so say how to connect a host. */
export function ConnectHost({ isAdmin }: { isAdmin: boolean }) {
  return (
    <div
      data-testid="queue-empty"
      className="rounded-lg border border-dashed border-slate-300 bg-white px-6 py-8 text-sm text-slate-700"
    >
      <p className="text-base font-medium text-slate-900">No approval requests yet</p>
      <p className="mt-1 max-w-prose">
        Tickets appear here, live, when an agent host asks for a decision. To connect one:
      </p>
      <ol className="mt-3 max-w-prose list-decimal space-y-2 pl-5">
        <li>
          {isAdmin ? (
            <>
              <Link href="/hosts" className="font-medium text-indigo-700 hover:underline">
                Register a host
              </Link>{' '}
              and issue it an API key.
            </>
          ) : (
            'Ask an admin to register your host and issue it an API key.'
          )}
        </li>
        <li>
          Use <code className="rounded bg-slate-100 px-1">HttpApprovalResolver</code> from{' '}
          <code className="rounded bg-slate-100 px-1">lib/client</code>, or send the request
          yourself and long-poll{' '}
          <code className="rounded bg-slate-100 px-1">
            GET /api/v1/approvals/&#123;id&#125;?wait=30
          </code>
          :
          <pre className="mt-2 overflow-x-auto rounded-md bg-slate-900 p-3 text-xs leading-5 text-slate-100">
            {REQUEST}
          </pre>
        </li>
        <li>
          Or watch it work first:{' '}
          <code className="rounded bg-slate-100 px-1">npm run demo:agent</code> runs a scripted
          agent against this app and sends real tickets.
        </li>
      </ol>
    </div>
  );
}
