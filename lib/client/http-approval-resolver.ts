import {
  type ApprovalConsultation,
  type ApprovalRequest,
  type ApprovalResolution,
  type ApprovalResolver,
  denySetOf,
} from '@checkpoint/agent-hooks';
import {
  jwksKeyLookup,
  type KeyLookup,
  type ReceiptClaims,
  verifyReceipt,
} from './verify-receipt.ts';

/**
 * An ApprovalResolver (§9) for a TypeScript host that talks to Checkpoint over
 * HTTP: it posts the request to `POST /api/v1/approvals`, then long-polls
 * `GET /api/v1/approvals/{id}?wait=` until the ticket is decided or its own
 * deadline passes. It fails closed:
 * - at its deadline it answers `unresolved` (echoing the identity), which the
 *   host enforces as `host_error:approval_unresolved`;
 * - when the app cannot take the request (transport errors past the retry
 *   budget, garbage answers, or any 4xx refusal, at once and with the app's
 *   error code) it throws, which the engine turns into
 *   `host_error:approval_resolver_failed`.
 * Set the engine's `resolverTimeoutMs` above `timeoutMs`, or the engine's
 * own timeout fires first (also a fail-closed deny, but reported as failed).
 */
export interface HttpApprovalResolverOptions {
  /** Base URL of the app, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** A host API key (`ck_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** This resolver's own deadline per consultation (default 15 minutes). */
  timeoutMs?: number;
  /**
   * Seconds per long-poll (1-30, default 25). Each wait is drawn ±20 % around
   * it (within 1-30 s and the deadline), so hosts that started together do
   * not re-poll the app in lock-step.
   */
  pollSeconds?: number;
  /** Sent as `timeout_ms`: the ticket's deadline (else the host's default applies on the server). */
  ticketTimeoutMs?: number;
  /** Sent as `identity_provider` when the host's provider is not the default `jcs-sha256`. */
  identityProvider?: string | null;
  /** Labels shown to reviewers. */
  sessionLabel?: string;
  agentLabel?: string;
  /**
   * The host's own id for a request, sent as `request_id` and echoed in the
   * callback webhook's payload, so a host can match callbacks to its calls.
   */
  requestId?: (request: ApprovalRequest) => string | undefined;
  /** Called with the ticket once it exists (e.g. to print its link). */
  onTicket?: (ticket: TicketCreated) => void;
  fetch?: typeof fetch;
  /** The jitter's random source, in [0, 1) like Math.random (the default); for tests. */
  random?: () => number;
  /**
   * Signed approval receipts (docs/receipts.md). `verify` (default): a
   * receipt that does not verify, or says something else than the
   * resolution, makes the answer `unresolved`; none at all is accepted.
   * `require`: none is `unresolved` too. `off`: not checked. Never an
   * approval that failed its check.
   */
  receipts?: 'verify' | 'require' | 'off';
  /**
   * Where the app's public keys are. Default: the evidence's `jwks` pointer
   * when it is on `baseUrl`'s origin, else `<baseUrl>/.well-known/jwks.json`;
   * a pointer to any other origin is never fetched.
   */
  jwksUrl?: string;
  /** Called with each receipt that verified (e.g. to keep it with the host's own audit). */
  onReceipt?: (receipt: { jws: string; kid: string; claims: ReceiptClaims }) => void;
}

export interface TicketCreated {
  id: string;
  status: string;
  expires_at: string;
  links: { self: string; wait: string; ui: string };
}

export class ApprovalClientError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ApprovalClientError';
  }
}

const DEFAULT_TIMEOUT_MS = 15 * 60 * 1000;
/** Transport retries for the POST; bounded so a dead app fails the consultation quickly. */
const POST_ATTEMPTS = 4;

export function HttpApprovalResolver(options: HttpApprovalResolverOptions): ApprovalResolver {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const pollSeconds = Math.min(30, Math.max(1, Math.floor(options.pollSeconds ?? 25)));
  const doFetch = options.fetch ?? globalThis.fetch;
  const random = options.random ?? Math.random;
  const headers = { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' };
  const receiptPolicy = options.receipts ?? 'verify';
  const keyLookups = new Map<string, KeyLookup>();
  /** The JWKS lookup for a resolution: the configured URL, a same-origin pointer, or the default. */
  const lookupFor = (resolution: ApprovalResolution): KeyLookup => {
    const pointer = (resolution.verdict?.evidence as { verification_pointers?: { jwks?: unknown } })
      ?.verification_pointers?.jwks;
    const url =
      options.jwksUrl ??
      (typeof pointer === 'string' && sameOrigin(pointer, base)
        ? pointer
        : `${base}/.well-known/jwks.json`);
    const cached = keyLookups.get(url);
    if (cached) return cached;
    const lookup = jwksKeyLookup(url, doFetch);
    keyLookups.set(url, lookup);
    return lookup;
  };
  /** The answer after its receipt check (issue 13): the resolution, or `unresolved` (fail closed). */
  const checked = async (
    answer: ApprovalResolution & { receipt?: unknown },
    ticketId: string,
    unresolved: () => ApprovalResolution,
  ): Promise<ApprovalResolution> => {
    const { receipt, ...resolution } = answer;
    // An unresolved answer releases nothing: there is nothing a receipt could add.
    if (receiptPolicy === 'off' || resolution.outcome === 'unresolved') return resolution;
    if (typeof receipt !== 'string') return receiptPolicy === 'require' ? unresolved() : resolution;
    const check = await verifyReceipt(receipt, { ticketId, resolution }, lookupFor(resolution));
    if (!check.ok) return unresolved();
    options.onReceipt?.({ jws: receipt, kid: check.kid, claims: check.claims });
    return resolution;
  };

  return async (
    request: ApprovalRequest,
    signal?: AbortSignal,
    consultation?: ApprovalConsultation,
  ): Promise<ApprovalResolution> => {
    const deadline = Date.now() + timeoutMs;
    const unresolved = (): ApprovalResolution => ({
      outcome: 'unresolved',
      context_identity: request.context_identity,
    });
    const denySet = denySetOf(consultation);
    const requestId = options.requestId?.(request);
    const body = JSON.stringify({
      ...request,
      // What led here (verdicts, fold_truncated), for the reviewer while the ticket is pending.
      ...(denySet ? { deny_set: denySet } : {}),
      ...(options.identityProvider !== undefined
        ? { identity_provider: options.identityProvider }
        : {}),
      ...(options.sessionLabel ? { session: options.sessionLabel } : {}),
      ...(options.agentLabel ? { agent: options.agentLabel } : {}),
      ...(options.ticketTimeoutMs ? { timeout_ms: options.ticketTimeoutMs } : {}),
      ...(requestId ? { request_id: requestId } : {}),
    });

    // The same identity always maps to the same ticket, so a POST whose answer
    // was lost can be sent again. Without an identity it could make a second
    // ticket, so it is sent once.
    const attempts = request.context_identity === null ? 1 : POST_ATTEMPTS;
    let ticket: TicketCreated | undefined;
    for (let attempt = 1; !ticket; attempt++) {
      const res = await send(
        doFetch,
        `${base}/api/v1/approvals`,
        { method: 'POST', headers, body },
        signal,
        deadline,
      );
      if (res.ok) {
        ticket = parseTicket(await res.json().catch(() => null));
        break;
      }
      // A 4xx is final: the same body would be refused again (e.g. 422
      // nul_character, U+0000 the store cannot hold), so the consultation
      // fails closed now (§9) rather than after a retry budget.
      const delay = retryDelayMs(attempt, random);
      if (!retryable(res) || attempt >= attempts || Date.now() + delay >= deadline) {
        throw await failure(res, 'approval request refused');
      }
      await sleep(delay, signal);
    }
    options.onTicket?.(ticket);

    const url = `${base}/api/v1/approvals/${encodeURIComponent(ticket.id)}`;
    for (let attempt = 1; ; ) {
      const left = deadline - Date.now();
      if (left <= 0) return unresolved();
      const wait = longPollWaitSeconds(pollSeconds, left, random);
      const res = await send(
        doFetch,
        `${url}?wait=${wait}`,
        { method: 'GET', headers },
        signal,
        deadline + 5_000,
        true,
      );
      if (res.ok && res.status === 200) {
        const resolution = await res.json().catch(() => undefined);
        if (resolution === undefined)
          throw new ApprovalClientError('answer_invalid', 'resolution is not JSON');
        // The engine validates it (§9 order); nothing is trusted here but the receipt.
        if (typeof resolution !== 'object' || resolution === null) {
          return resolution as ApprovalResolution;
        }
        return checked(resolution as ApprovalResolution, ticket.id, unresolved);
      }
      if (res.status === 202) {
        attempt = 1;
        if (wait === 0) await sleep(Math.min(1000, Math.max(0, deadline - Date.now())), signal);
        continue;
      }
      if (!retryable(res)) throw await failure(res, 'waiting for the approval failed');
      // The app restarting or a network blip: keep waiting, the ticket is durable.
      await sleep(
        Math.min(retryDelayMs(attempt++, random), Math.max(0, deadline - Date.now())),
        signal,
      );
    }
  };
}

type Answer = Response | { ok: false; status: 0; error: string };

/** fetch that never throws on transport errors (status 0) but does on abort. */
async function send(
  doFetch: typeof fetch,
  url: string,
  init: RequestInit,
  signal: AbortSignal | undefined,
  deadline: number,
  longPoll = false,
): Promise<Answer> {
  if (signal?.aborted) throw new ApprovalClientError('aborted', 'consultation aborted');
  const ctrl = new AbortController();
  const onAbort = () => ctrl.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  // A long-poll gets its wait plus slack; a POST gets 10 s at most.
  const limit = longPoll
    ? Math.max(1000, deadline - Date.now())
    : Math.min(10_000, Math.max(1000, deadline - Date.now()));
  const timer = setTimeout(() => ctrl.abort(), limit);
  try {
    return await doFetch(url, { ...init, signal: ctrl.signal });
  } catch (err) {
    if (signal?.aborted) throw new ApprovalClientError('aborted', 'consultation aborted');
    return { ok: false, status: 0, error: err instanceof Error ? err.name : 'transport error' };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** True when `url` is on `base`'s origin (scheme, host, port); false for anything unparsable. */
function sameOrigin(url: string, base: string): boolean {
  try {
    return new URL(url).origin === new URL(base).origin;
  } catch {
    return false;
  }
}

function retryable(res: Answer): boolean {
  return res.status === 0 || res.status === 429 || res.status >= 500;
}

/** Each long-poll's wait varies by this fraction of `pollSeconds` either way. */
export const POLL_JITTER = 0.2;
/** The server's long-poll cap (`?wait=` above it waits this long). */
const MAX_WAIT_SECONDS = 30;

/**
 * The `?wait=` of the next long-poll, in whole seconds: `pollSeconds`
 * ±POLL_JITTER, drawn anew each time (issue 17: a thousand hosts parked at
 * once otherwise all come back, and re-poll, in the same second), within
 * 1-30 s and never past the consultation's deadline (`leftMs` away; 0 when
 * under a second is left).
 */
export function longPollWaitSeconds(
  pollSeconds: number,
  leftMs: number,
  random: () => number = Math.random,
): number {
  const drawn = Math.round(pollSeconds * (1 - POLL_JITTER + 2 * POLL_JITTER * random()));
  const wait = Math.min(MAX_WAIT_SECONDS, Math.max(1, drawn));
  return Math.max(0, Math.min(wait, Math.floor(leftMs / 1000)));
}

/**
 * Back-off before retry `attempt` (1, 2, …): "full jitter", uniform in
 * [0, min(250 ms · 2^(attempt−1), 5 s)), so clients that lost the app at the
 * same moment do not all come back at the same moment.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(250 * 2 ** (attempt - 1), 5_000));
}

/**
 * The error a consultation fails with. A refusal carries the app's stable
 * code and message (`{error: {code, message}}`), so the host's logs say why;
 * anything else is `http_error`.
 */
async function failure(res: Answer, what: string): Promise<ApprovalClientError> {
  if (res.status === 0) {
    const error = (res as { error: string }).error;
    return new ApprovalClientError('transport_error', `${what}: ${error}`);
  }
  // Not `instanceof Response`: a custom fetch may answer with another realm's Response.
  const body = (await (res as Response).json().catch(() => null)) as {
    error?: { code?: unknown; message?: unknown };
  } | null;
  const code = typeof body?.error?.code === 'string' ? body.error.code : 'http_error';
  const detail =
    typeof body?.error?.message === 'string' ? ` (${code}: ${body.error.message})` : '';
  return new ApprovalClientError(code, `${what}: HTTP ${res.status}${detail}`, res.status);
}

function parseTicket(v: unknown): TicketCreated {
  const t = v as TicketCreated | null;
  if (!t || typeof t.id !== 'string' || !t.links || typeof t.links.ui !== 'string') {
    throw new ApprovalClientError('answer_invalid', 'the ticket answer is malformed');
  }
  return t;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ApprovalClientError('aborted', 'consultation aborted'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ApprovalClientError('aborted', 'consultation aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
