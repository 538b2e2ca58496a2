import 'server-only';

/**
 * Delivery policy. The defaults give 8 attempts over about an hour; tests and
 * the bench shorten the delays with `setWebhookPolicy` (one process-wide
 * value on globalThis, so route and job module graphs share it).
 */
export interface WebhookPolicy {
  /** Delay before retry n (n = 1…): its length + 1 is the number of attempts. */
  retryDelaysMs: number[];
  /** Consecutive failed attempts after which an endpoint is disabled. */
  disableAfterFailures: number;
  /** How long the previous secret keeps signing after a rotation, by default. */
  rotationOverlapMs: number;
}

export const DEFAULT_WEBHOOK_POLICY: WebhookPolicy = {
  retryDelaysMs: [30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_200_000],
  disableAfterFailures: 20,
  rotationOverlapMs: 24 * 60 * 60 * 1000,
};

const g = globalThis as unknown as { __checkpointWebhookPolicy?: WebhookPolicy };

export function webhookPolicy(): WebhookPolicy {
  return g.__checkpointWebhookPolicy ?? DEFAULT_WEBHOOK_POLICY;
}

export function setWebhookPolicy(p: Partial<WebhookPolicy> | null): void {
  g.__checkpointWebhookPolicy = p ? { ...DEFAULT_WEBHOOK_POLICY, ...p } : undefined;
}

export function maxAttempts(p = webhookPolicy()): number {
  return p.retryDelaysMs.length + 1;
}
