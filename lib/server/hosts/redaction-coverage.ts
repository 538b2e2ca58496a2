import 'server-only';
import { type PathSegment, parseTransformPath } from '@checkpoint/agent-hooks';
import { db } from '@/lib/server/db';

/**
 * Whether a host's redaction paths actually hide anything (issue 14, bug 1).
 * A path is written relative to `$target`, and `$target` differs per
 * interception point (§3, §4.3): at `pre_tool_call` it is the tool's
 * arguments, so `$target.args.password` looks plausible and matches nothing,
 * and the secret reaches reviewers, the resolver webhook and Slack in clear.
 * Intake records, per ticket, the configured paths that resolved to nothing
 * in the request (`ApprovalTicket.redactionMisses`); the ticket page names
 * them, and the host page warns about paths that matched nothing in any of
 * the host's recent tickets, with the spelling that would have matched.
 */

/** What `$target` is at each interception point (§3), and paths written against it. */
export const TARGET_BY_POINT: Record<string, { is: string; examples: string[] }> = {
  pre_tool_call: {
    is: "the tool's arguments (tool_call.args)",
    examples: ['$target.password', '$target.headers["x-api-key"]'],
  },
  post_tool_call: {
    is: "the tool's result value (tool_result.value)",
    examples: ['$target.access_token'],
  },
  pre_model_call: { is: 'the messages sent to the model', examples: ['$target[0].content'] },
  post_model_call: { is: "the model's response", examples: ['$target.content'] },
  input: { is: 'the incoming request', examples: ['$target.api_key'] },
  output: { is: 'the final response', examples: ['$target.text'] },
};

/** The host form's help: examples for the common case (a tool call's arguments), and what `$target` is where. */
export const REDACTION_HELP = {
  examples: TARGET_BY_POINT.pre_tool_call?.examples ?? [],
  targets: `at pre_tool_call ${TARGET_BY_POINT.pre_tool_call?.is} (so $target.password, not $target.args.password), at post_tool_call ${TARGET_BY_POINT.post_tool_call?.is}, at pre_model_call ${TARGET_BY_POINT.pre_model_call?.is}`,
};

/**
 * Prefixes people write by mistake before the part `$target` already is:
 * the context's own path to the target (`tool_call.args`) and its last step.
 */
const TARGET_PREFIXES: Record<string, string[][]> = {
  pre_tool_call: [['tool_call', 'args'], ['args']],
  post_tool_call: [['tool_result', 'value'], ['value'], ['tool_result']],
  pre_model_call: [['messages']],
  post_model_call: [['response']],
  input: [['input']],
  output: [['output']],
};

/** Does the path reach an existing value in `target`? (Members of plain objects, indexes in range.) */
function resolves(target: unknown, segments: readonly PathSegment[]): boolean {
  let at: unknown = target;
  for (const s of segments) {
    if (s.kind === 'member') {
      if (at === null || typeof at !== 'object' || Array.isArray(at)) return false;
      if (!Object.hasOwn(at, s.name)) return false;
      at = (at as Record<string, unknown>)[s.name];
    } else {
      if (!Array.isArray(at) || s.index >= at.length) return false;
      at = at[s.index];
    }
  }
  return true;
}

/**
 * The configured paths that reach nothing in the context's target, in the
 * order configured. A path the host already redacted itself still reaches
 * its "[redacted]" value, so it counts as matched. A path that no longer
 * parses is reported too: it cannot hide anything.
 */
export function unmatchedRedactionPaths(
  paths: readonly string[],
  context: { target?: unknown },
): string[] {
  const out: string[] = [];
  for (const path of paths) {
    const parsed = parseTransformPath(path);
    if (!parsed.ok || !resolves(context.target, parsed.segments)) out.push(path);
  }
  return out;
}

/**
 * The spelling that would have matched at this interception point, when the
 * path starts with the context's own path to the target (e.g.
 * `$target.args.password` at pre_tool_call → `$target.password`), else null.
 */
export function suggestedPath(path: string, point: string): string | null {
  const parsed = parseTransformPath(path);
  if (!parsed.ok) return null;
  for (const prefix of TARGET_PREFIXES[point] ?? []) {
    const head = parsed.segments.slice(0, prefix.length);
    const matches =
      parsed.segments.length > prefix.length &&
      head.every((s, i) => s.kind === 'member' && s.name === prefix[i]);
    if (matches) return `$target${path.slice(prefixLength(path, prefix.length))}`;
  }
  return null;
}

/** Length of `$target` plus the first `n` segments as written (a member is `.name` or `["name"]`). */
function prefixLength(path: string, n: number): number {
  let i = '$target'.length;
  for (let k = 0; k < n; k++) {
    if (path[i] === '.') {
      i++;
      while (i < path.length && path[i] !== '.' && path[i] !== '[') i++;
    } else {
      i = path.indexOf(']', i) + 1;
    }
  }
  return i;
}

export type RedactionPathWarning = {
  path: string;
  /** Recent tickets checked, and in how many the path matched nothing. */
  tickets: number;
  missed: number;
  /** Interception points of those tickets, with the spelling that would have matched there. */
  points: { point: string; suggestion: string | null }[];
};

/** How many of a host's latest tickets the coverage check looks at. */
export const COVERAGE_TICKETS = 50;

/**
 * The host's configured paths that matched nothing in every one of its
 * latest tickets (up to COVERAGE_TICKETS): each almost certainly hides
 * nothing. Paths added after those tickets are not judged by them.
 */
export async function redactionPathWarnings(
  hostId: string,
  configured: readonly string[],
): Promise<RedactionPathWarning[]> {
  if (configured.length === 0) return [];
  const prisma = await db();
  const tickets = await prisma.approvalTicket.findMany({
    where: { hostId },
    orderBy: { createdAt: 'desc' },
    take: COVERAGE_TICKETS,
    select: { interceptionPoint: true, redactionMisses: true, redactionChecked: true },
  });
  const warnings: RedactionPathWarning[] = [];
  for (const path of configured) {
    // Only tickets whose intake checked this path judge it.
    const judged = tickets.filter((t) => t.redactionChecked.includes(path));
    if (judged.length === 0) continue;
    const missed = judged.filter((t) => t.redactionMisses.includes(path));
    if (missed.length < judged.length) continue;
    const points = [...new Set(missed.map((t) => t.interceptionPoint))].map((point) => ({
      point,
      suggestion: suggestedPath(path, point),
    }));
    warnings.push({ path, tickets: judged.length, missed: missed.length, points });
  }
  return warnings;
}
