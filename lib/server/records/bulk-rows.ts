import 'server-only';
import { randomBytes } from 'node:crypto';
import { canonicalJson, type InterceptionRecord } from '@checkpoint/agent-hooks';
import { chainHashOf } from './chain';
import { type RecordRow, recordRow } from './columns';
import { sha256Hex } from './validate-record';

/**
 * Synthetic, schema-valid records for `seed:records` and `bench:records`:
 * sessions that walk the agent loop, mostly allows, some denies (a few of
 * them host errors and approvals), spread over the last `spreadDays` days.
 */

const LOOP = [
  'agent_startup',
  'input',
  'pre_model_call',
  'post_model_call',
  'pre_tool_call',
  'post_tool_call',
  'pre_model_call',
  'post_model_call',
  'output',
] as const;
const DENY_REASONS = [
  'pii_detected',
  'destructive_tool',
  'policy_violation',
  'host_error:interceptor_timeout',
  'host_error:interceptor_failed',
];

export type SyntheticSession = {
  sessionId: string;
  agentId: string;
  records: InterceptionRecord[];
};

/** xorshift: the same seed gives the same data, and it is fast. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

export function runTag(): string {
  return randomBytes(4).toString('hex');
}

export function syntheticSession(
  tag: string,
  n: number,
  length: number,
  opts: { spreadDays?: number; now?: number } = {},
): SyntheticSession {
  const rand = rng(n * 2654435761 + tag.length);
  const now = opts.now ?? Date.now();
  const start = now - rand() * (opts.spreadDays ?? 30) * 86_400_000;
  const records: InterceptionRecord[] = [];
  for (let seq = 0; seq < length; seq++) {
    const point = seq === length - 1 ? 'agent_shutdown' : LOOP[seq % LOOP.length];
    const roll = rand();
    const deny = roll < 0.07 && point !== 'agent_shutdown';
    const reason = deny ? DENY_REASONS[Math.floor(rand() * DENY_REASONS.length)] : undefined;
    const liftable = deny && point === 'pre_tool_call' && roll < 0.03;
    const id = sha256Hex(`${tag}:${n}:${seq}`);
    const record: InterceptionRecord = {
      interception_point: point,
      mode: 'enforce',
      verdict: deny
        ? { decision: 'deny', reason, ...(liftable ? { approval: {} } : {}) }
        : { decision: 'allow' },
      input_identity: `sha256:${id}`,
      enforced_identity: `sha256:${id}`,
      identity_provider: 'jcs-sha256',
      session_id: `${tag}-s${n}`,
      sequence: seq,
      timestamp: new Date(start + seq * 1500).toISOString(),
      decided_by: deny ? 0 : null,
      composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
      ...(deny ? { fold_truncated: rand() < 0.5 } : {}),
      interceptors_registered: 2,
      ...(liftable ? { resolved_by: 'rejection' as const } : {}),
    };
    records.push(record);
  }
  return { sessionId: `${tag}-s${n}`, agentId: `agent-${n % 20}`, records };
}

/**
 * A whole session chained from its start, as the ingest would have stored it:
 * the same row shape and columns (`columns.ts`), received when it happened so
 * that searches over the last days find it.
 */
export function bulkRows(s: SyntheticSession): RecordRow[] {
  let prev: string | null = null;
  return s.records.map((r) => {
    const canonical = canonicalJson(r);
    const chainHash = chainHashOf(prev, canonical);
    const row = recordRow(r, {
      sessionId: s.sessionId,
      sequence: r.sequence,
      agentId: s.agentId,
      record: canonical,
      chainHash,
      prevHash: prev,
      ticketId: null,
      receivedAt: r.timestamp ?? new Date().toISOString(),
      contentHash: sha256Hex(canonical),
      hostFailure: false,
      dedupeKey: '',
    });
    prev = chainHash;
    return row;
  });
}

/** SessionChain heads for sessions stored whole (`multiRowInsert`, `unnestInsert`). */
export function chainHeadsInsert(hostId: string, sessions: RecordRow[][]) {
  const last = sessions.map((rows) => rows[rows.length - 1]);
  return {
    sql: `INSERT INTO "SessionChain" ("hostId", "sessionId", "lastSequence", "headHash", "recordCount", "updatedAt")
          SELECT $1::uuid, s, l, h, c, now() FROM unnest($2::text[], $3::int[], $4::text[], $5::int[]) AS u(s, l, h, c)`,
    params: [
      hostId,
      last.map((r) => r.sessionId),
      last.map((r) => r.sequence),
      last.map((r) => r.chainHash),
      sessions.map((rows) => rows.length),
    ],
  };
}
