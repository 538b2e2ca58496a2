import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { type PostResult, postWebhook } from '../net/http-post';
import { guardOptionsFromConfig } from '../net/ssrf';
import { SecretDecryptError } from './encryption';
import { activeSecrets } from './secrets';
import { signedHeaders } from './signing';

/** A failed attempt; `notSent` when it failed before any request went out. */
export type AttemptResult = PostResult & { notSent?: boolean };

export interface SignedPostInput {
  webhookId: string;
  /** The `webhook-id` header, the same across retries. */
  messageId: string;
  url: string;
  body: string;
  timeoutMs: number;
  requireWholeBody?: boolean;
}

/**
 * Signs a body with the endpoint's active secrets and POSTs it, never
 * throwing: a failure before the request (a stored secret this process
 * cannot decrypt, no active secret, anything else) comes back as a failed
 * result with a code, so the caller records it as an attempt like a refused
 * request. Before this, such a throw left the delivery pending with no
 * attempt and no error, never counted toward auto-disable, and a redelivery
 * repeated it silently.
 */
export async function postSigned(prisma: PrismaClient, p: SignedPostInput): Promise<AttemptResult> {
  let headers: Record<string, string>;
  try {
    const secrets = await activeSecrets(prisma, p.webhookId);
    headers = { ...signedHeaders(secrets, p.messageId, p.body) };
  } catch (err) {
    return { ok: false, latencyMs: 0, notSent: true, error: attemptErrorText(err) };
  }
  return postWebhook({
    url: p.url,
    body: p.body,
    headers,
    timeoutMs: p.timeoutMs,
    guard: guardOptionsFromConfig(),
    requireWholeBody: p.requireWholeBody,
  });
}

/**
 * `code: detail`, what the delivery log shows for an attempt that failed
 * with an exception: `signing_secret_unreadable`, else `fallback`. Only the
 * message's last line: Prisma's messages open with a source excerpt that
 * the host page has no business showing.
 */
export function attemptErrorText(err: unknown, fallback = 'not_sent'): string {
  const message = err instanceof Error ? err.message : String(err);
  const lines = message.split('\n').map((l) => l.trim());
  const detail = lines.filter(Boolean).pop() ?? 'unknown error';
  const code = err instanceof SecretDecryptError ? err.code : fallback;
  return `${code}: ${detail}`;
}
