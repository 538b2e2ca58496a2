import 'server-only';
import { checkpointMetrics } from './registry';

/** Which client sent an outbound request: webhooks (deliveries, the resolver) or Slack. */
export type OutboundClient = 'webhook' | 'slack_webhook';

/** One outbound request that reached the network, and how long it took to settle. */
export function observeOutbound(client: OutboundClient, ok: boolean, latencyMs: number): void {
  checkpointMetrics().outboundDuration.observe(
    { client, outcome: ok ? 'ok' : 'failed' },
    latencyMs / 1000,
  );
}
