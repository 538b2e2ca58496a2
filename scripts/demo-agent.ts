// `npm run demo:agent`: the CTK's reference agent loop against a running
// Checkpoint over HTTP, with a scripted model and tools, so that a newcomer
// sees real tickets arrive in /approvals. It creates nothing by itself: make a
// host and an API key in /hosts first, then
//   CHECKPOINT_API_KEY=ck_… npm run demo:agent -- --url http://localhost:3000
import { parseArgs } from 'node:util';
import type { RunSetup, ScriptedResolver } from '../conformance/harness';
import { referenceHarness } from '../conformance/reference-harness';
import type { JsonObject, ScriptedResponse } from '../conformance/vector';
import { HttpApprovalResolver, HttpRecordSink } from '@checkpoint/client';
import {
  type AgentContext,
  type InterceptionRecord,
  redactPaths,
  Verdict,
} from '@checkpoint/agent-hooks';

const USAGE = `Usage: npm run demo:agent -- [--url URL] [--key KEY] [--wait SECONDS] [--redact PATH]...

Runs a scripted agent against Checkpoint: a wire transfer over 10,000 escalates
to a reviewer, a file deletion is denied, an email carrying a secret is
rewritten. Approve (or edit the amount) in the browser and watch the agent go on.

  --url     the app (default $CHECKPOINT_URL or http://localhost:3000)
  --key     a host API key (default $CHECKPOINT_API_KEY)
  --wait    how long to wait for a reviewer, in seconds (default 600)
  --redact  a $target path the host redacts before asking (repeatable); use the
            same paths as the host's redaction paths in /hosts

Getting a key: sign in as an admin, open /hosts, create a host (e.g. "demo"),
issue an API key, and copy it (it is shown once).`;

const THRESHOLD = 10_000;
const SECRET = /sk_live_[A-Za-z0-9]+/;

function say(step: string, text: string): void {
  console.log(`${step.padEnd(9)} ${text}`);
}

/** Transfers above the threshold need a human: a liftable deny (§5.1). */
function paymentsLimit(context: unknown) {
  const ctx = context as AgentContext;
  if (ctx.interception_point !== 'pre_tool_call') return Verdict.allow();
  const call = ctx.tool_call as { name: string; args: { amount?: number; currency?: string } };
  if (call.name !== 'wire_transfer' || (call.args.amount ?? 0) <= THRESHOLD) return Verdict.allow();
  say(
    'policy',
    `wire_transfer of ${call.args.amount} ${call.args.currency} is over ${THRESHOLD}: asking a reviewer`,
  );
  return {
    decision: 'deny',
    reason: 'amount_over_threshold',
    message: `Transfers over ${THRESHOLD} need a reviewer's approval.`,
    approval: {},
  };
}

/** Deleting files is never allowed: a plain deny. */
function noDeletes(context: unknown) {
  const ctx = context as AgentContext;
  if (ctx.interception_point !== 'pre_tool_call') return Verdict.allow();
  if ((ctx.tool_call as { name: string }).name !== 'delete_file') return Verdict.allow();
  say('policy', 'delete_file is denied (destructive_tool)');
  return { decision: 'deny', reason: 'destructive_tool', message: 'Agents may not delete files.' };
}

/** Outgoing mail never carries a secret: the secret is cut out (a transform, §5.2). */
function secretScrubber(context: unknown) {
  const ctx = context as AgentContext;
  if (ctx.interception_point !== 'pre_tool_call') return Verdict.allow();
  const call = ctx.tool_call as { name: string; args: { body?: string } };
  if (call.name !== 'send_email' || !SECRET.test(call.args.body ?? '')) return Verdict.allow();
  say('policy', 'send_email body contains a secret: rewriting it');
  return {
    decision: 'transform',
    reason: 'secret_redacted',
    transform: {
      path: '$target.body',
      value: (call.args.body ?? '').replace(new RegExp(SECRET, 'g'), '[secret removed]'),
    },
  };
}

const SCRIPT: ScriptedResponse[] = [
  {
    content: null,
    finish_reason: 'tool_calls',
    tool_calls: [
      {
        id: 'call-transfer',
        name: 'wire_transfer',
        args: { to: 'ACME GmbH', amount: 25_000, currency: 'EUR', reference: 'INV-1142' },
      },
    ],
  },
  {
    content: null,
    finish_reason: 'tool_calls',
    tool_calls: [{ id: 'call-delete', name: 'delete_file', args: { path: '/srv/reports/2025' } }],
  },
  {
    content: null,
    finish_reason: 'tool_calls',
    tool_calls: [
      {
        id: 'call-mail',
        name: 'send_email',
        args: {
          to: 'auditor@example.com',
          subject: 'Invoice 1142',
          body: 'Paid INV-1142. The ledger API key is sk_live_4f9a8b7c6d5e if you need it.',
        },
      },
    ],
  },
  {
    // Filled in from what the tools really did (finalWords): never "paid" after a rejection.
    content: '',
    finish_reason: 'stop',
    tool_calls: [],
  },
];

/** What the tools did, for the agent's last words. */
const done: { paid: string | null; deleted: boolean; mailed: boolean } = {
  paid: null,
  deleted: false,
  mailed: false,
};

function finalWords(): string {
  const payment = done.paid ? `payment made (${done.paid})` : 'payment NOT made (not approved)';
  const reports = done.deleted ? 'old reports deleted' : 'old reports kept';
  const mail = done.mailed ? 'summary sent' : 'summary NOT sent';
  return `Done: ${payment}, ${reports}, ${mail}.`;
}

const TOOLS: Record<string, (args: JsonObject) => { value: string; isError: boolean }> = {
  wire_transfer: (a) => {
    say('tool', `wire_transfer EXECUTED: ${a.amount} ${a.currency} to ${a.to} (${a.reference})`);
    if (a.amount !== 25_000) say('', `  the reviewer edited the amount: 25000 → ${a.amount}`);
    done.paid = `${a.amount} ${a.currency}`;
    return { value: `transferred ${a.amount} ${a.currency}`, isError: false };
  },
  delete_file: (a) => {
    say('tool', `delete_file EXECUTED on ${a.path} (this should not happen)`);
    done.deleted = true;
    return { value: 'deleted', isError: false };
  },
  send_email: (a) => {
    say('tool', `send_email EXECUTED to ${a.to}: "${a.body}"`);
    done.mailed = true;
    return { value: 'sent', isError: false };
  },
};

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      wait: { type: 'string' },
      redact: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const baseUrl = values.url ?? process.env.CHECKPOINT_URL ?? 'http://localhost:3000';
  const apiKey = values.key ?? process.env.CHECKPOINT_API_KEY;
  if (!apiKey) {
    console.error('No API key: pass --key or set CHECKPOINT_API_KEY.\n');
    console.error(USAGE);
    return 2;
  }
  const waitMs = Number(values.wait ?? 600) * 1000;
  const resolver = HttpApprovalResolver({
    baseUrl,
    apiKey,
    timeoutMs: waitMs,
    sessionLabel: 'Demo: invoice run',
    agentLabel: 'Demo billing agent',
    onTicket: (t) => {
      say('ticket', `${t.links.ui}`);
      say(
        '',
        `  waiting for a reviewer (up to ${waitMs / 1000} s): approve, reject, or edit the amount`,
      );
    },
  });
  const responses = [...SCRIPT];
  const setup: RunSetup = {
    vectorId: `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`,
    mode: 'enforce',
    composition: { profile: 'sequential/first_deny' },
    identityProvider: { kind: 'jcs-sha256' },
    interceptors: [paymentsLimit, noDeletes, secretScrubber],
    // The harness calls resolvers synchronously typed; the engine awaits whatever comes back.
    // The signal and consultation pass through, so the ticket shows the deny set while pending.
    resolver: ((request: unknown, signal?: unknown, consultation?: unknown) =>
      resolver(
        request as never,
        (signal as AbortSignal | undefined) ?? new AbortController().signal,
        consultation as never,
      )) as unknown as ScriptedResolver,
    redactor: values.redact?.length
      ? (redactPaths(values.redact) as (c: unknown) => unknown)
      : null,
    input: {
      content: 'Pay invoice 1142, clean up the 2025 reports, and mail the auditor.',
      role: 'user',
    },
    toolNames: Object.keys(TOOLS),
    tool: (name) => TOOLS[name],
    nextResponse: () => {
      const next = responses.shift() ?? null;
      return next && next.finish_reason === 'stop' ? { ...next, content: finalWords() } : next;
    },
  };
  say('agent', `${setup.input.content}  (app: ${baseUrl})`);
  const run = await referenceHarness.run(setup);
  console.log('');
  for (const r of run.records as InterceptionRecord[]) {
    const what = `#${r.sequence} ${r.interception_point}`;
    const extra = r.resolved_by ? ` (resolved_by ${r.resolved_by})` : '';
    say('record', `${what.padEnd(28)} ${r.verdict.decision} ${r.verdict.reason ?? ''}${extra}`);
  }
  // The session's §10.3 records go to the audit store (/audit) like any host's.
  const sink = new HttpRecordSink({ baseUrl, apiKey, agentId: 'ctk-agent' });
  for (const r of run.records as InterceptionRecord[]) sink.push(r);
  const sent = await sink.close(30_000);
  const lost = sent.dropped > 0 ? `, ${sent.dropped} dropped (${sent.lastError})` : '';
  say('records', `${sent.sent} stored in the audit store${lost}`);
  say('done', `${run.outcome}: ${JSON.stringify(run.final_output)}`);
  if (run.error) say('error', run.error);
  return run.outcome === 'error' ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
