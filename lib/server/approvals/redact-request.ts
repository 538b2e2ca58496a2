import 'server-only';
import {
  type AgentContext,
  canonicalJson,
  formatPath,
  JCS_SHA256,
  jcsSha256,
  parseTransformPath,
  redactPaths,
} from '@checkpoint/agent-hooks';
import { IntakeError } from './errors';

/** The extension namespace under which the server documents what it removed (§9). */
export const SERVER_NAMESPACE = 'checkpoint';
/** Same replacement as the engine's `redactPaths`, so a host redacting locally matches byte for byte. */
export const REDACTED = '[redacted]';

export interface BoundContext {
  /** What is stored and shown: the host's redaction paths replaced. */
  context: AgentContext;
  /** Every redacted `$target…` path: the server's and the ones the host declared. */
  redactedPaths: string[];
}

/**
 * Applies the host's redaction paths before anything is stored, then binds
 * the identity to what is stored.
 *
 * The rule (§9: the identity is computed over the redacted context): a host
 * must apply its redaction paths itself, with the engine's `redactPaths`
 * (replacement "[redacted]"), before computing its identity. Re-applying
 * them here then changes nothing the identity covers, and the echo holds. A
 * request whose content the server's redaction would change is refused
 * (422 `redaction_required`, naming the paths, never the values) when it is
 * identity-bound: storing the redacted context under an identity computed
 * over the secret would bind the approval to content no reviewer saw, and
 * recomputing the identity would break the host's echo check. Identity-less
 * requests (null) bind nothing, so they are redacted and stored.
 *
 * The host's paths were checked against the §5.2 grammar when saved; one
 * that no longer parses (saved under an older grammar) makes `redactPaths`
 * throw: the request is refused with 422 `redaction_paths_invalid` and nothing
 * is stored until an admin re-saves the paths.
 *
 * For `jcs-sha256` the identity is recomputed over the stored context and
 * must equal the claim (422 `identity_mismatch`). Host-defined providers
 * cannot be recomputed here; their identity is taken as the host's word.
 */
function hostRedactor(paths: readonly string[]): (context: AgentContext) => AgentContext {
  try {
    return redactPaths(paths, { namespace: SERVER_NAMESPACE, replacement: REDACTED });
  } catch (error) {
    throw new IntakeError(
      'redaction_paths_invalid',
      `This host's redaction paths do not follow §5.2 (${(error as Error).message}); an admin must re-save them on the host's page. Nothing was stored.`,
      { paths },
    );
  }
}

export function bindContext(
  context: AgentContext,
  paths: readonly string[],
  identity: string | null,
  provider: string | null,
): BoundContext {
  const stored = paths.length > 0 ? hostRedactor(paths)(context) : context;
  const changed =
    stored !== context && canonicalJson(stored.target) !== canonicalJson(context.target);
  if (changed && identity !== null) {
    throw new IntakeError(
      'redaction_required',
      `This host redacts ${paths.join(', ')} before storage: apply them in the host (redactPaths) before computing context_identity (§9).`,
      { paths },
    );
  }
  if (provider === JCS_SHA256) {
    let recomputed: string;
    try {
      recomputed = jcsSha256.compute(stored);
    } catch (err) {
      throw new IntakeError(
        'context_invalid',
        `context: ${err instanceof Error ? err.message : 'invalid'}`,
      );
    }
    if (recomputed !== identity) {
      throw new IntakeError(
        'identity_mismatch',
        'context_identity is not the jcs-sha256 identity of the (redacted) context (§10.2).',
      );
    }
  }
  return { context: stored, redactedPaths: declaredRedactions(stored) };
}

/**
 * `extensions.<ns>.redacted` arrays of §5.2 paths (§9), normalized and
 * de-duplicated. A declared entry outside the §5.2 grammar (e.g. the old
 * `$target["api key"]` spelling) cannot be located, but it still says the
 * host hid something: it is kept verbatim rather than forgotten, so the
 * decision side can refuse edits it cannot prove clear of it (fail closed).
 */
function declaredRedactions(ctx: AgentContext): string[] {
  const out = new Set<string>();
  const ext = ctx.extensions;
  if (ext === null || typeof ext !== 'object' || Array.isArray(ext)) return [];
  for (const ns of Object.values(ext as Record<string, unknown>)) {
    if (ns === null || typeof ns !== 'object' || Array.isArray(ns)) continue;
    const list = (ns as Record<string, unknown>).redacted;
    if (!Array.isArray(list)) continue;
    for (const p of list) {
      if (typeof p !== 'string') continue;
      const parsed = parseTransformPath(p);
      out.add(parsed.ok ? formatPath(parsed.segments) : p);
    }
  }
  return [...out];
}
