import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countIngested, countRefused, noteClientDropped } from '@/lib/server/metrics/records';
import { checkpointMetrics } from '@/lib/server/metrics/registry';
import { parseAllowList } from '@/lib/server/net/address-class';
import { makeGuardedFetch } from '@/lib/server/net/guarded-fetch';
import { postWebhook } from '@/lib/server/net/http-post';
import type { GuardOptions } from '@/lib/server/net/ssrf';

/** One registry for /api/metrics: the names hosts alert on, process metrics, outbound latency. */

const loopback: GuardOptions = {
  allowHttpLoopback: true,
  allowList: parseAllowList(''),
  lookup: async () => [{ address: '127.0.0.1', family: 4 }],
};

async function outboundCount(client: string, outcome: string): Promise<number> {
  const { values } = await checkpointMetrics().outboundDuration.get();
  const count = values.find(
    (v) =>
      v.metricName === 'checkpoint_outbound_request_duration_seconds_count' &&
      v.labels.client === client &&
      v.labels.outcome === outcome,
  );
  return count?.value ?? 0;
}

describe('the metrics registry', () => {
  it('is one per process, however often it is asked for', () => {
    expect(checkpointMetrics()).toBe(checkpointMetrics());
  });

  it('keeps the record counters, their labels and per-process HELP', async () => {
    countIngested([
      {
        record: {
          interception_point: 'pre_tool_call',
          verdict: { decision: 'deny', reason: 'host_error:x' },
        },
        hostFailure: false,
      },
    ]);
    countRefused('records_invalid');
    expect(noteClientDropped('h"1', 5)).toBe(0);
    expect(noteClientDropped('h"1', 3)).toBe(5);
    const text = await checkpointMetrics().registry.metrics();
    expect(text).toContain(
      'checkpoint_records_ingested_total{point="pre_tool_call",decision="deny"} 1',
    );
    expect(text).toMatch(/^checkpoint_records_host_error_total 1$/m);
    expect(text).toMatch(/^checkpoint_records_host_failure_total 0$/m);
    expect(text).toContain('checkpoint_records_refused_total{code="records_invalid"} 1');
    expect(text).toContain('checkpoint_records_client_dropped{host="h\\"1"} 5');
    for (const name of [
      'checkpoint_records_ingested_total',
      'checkpoint_records_refused_total',
      'checkpoint_records_client_dropped',
      'checkpoint_outbound_request_duration_seconds',
    ]) {
      expect(text).toMatch(new RegExp(`^# HELP ${name} .*this process`, 'm'));
    }
  });

  it('adds the process and Node.js metrics and the outbound histogram', async () => {
    const text = await checkpointMetrics().registry.metrics();
    expect(text).toMatch(/^# TYPE process_cpu_user_seconds_total counter$/m);
    expect(text).toMatch(/^# TYPE process_resident_memory_bytes gauge$/m);
    expect(text).toMatch(/^# TYPE nodejs_heap_size_used_bytes gauge$/m);
    expect(text).toMatch(/^# TYPE nodejs_eventloop_lag_seconds gauge$/m);
    expect(text).toMatch(/^# TYPE checkpoint_outbound_request_duration_seconds histogram$/m);
  });
});

describe('outbound requests are timed', () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((req, res) => res.writeHead(req.url === '/fail' ? 500 : 200).end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('a webhook POST that reached the network, by outcome', async () => {
    const [ok, failed] = [
      await outboundCount('webhook', 'ok'),
      await outboundCount('webhook', 'failed'),
    ];
    const post = (path: string) =>
      postWebhook({
        url: `http://hooks.test:${port}${path}`,
        body: '{}',
        headers: {},
        guard: loopback,
      });
    expect((await post('/')).ok).toBe(true);
    expect((await post('/fail')).error).toBe('http_500');
    expect(await outboundCount('webhook', 'ok')).toBe(ok + 1);
    expect(await outboundCount('webhook', 'failed')).toBe(failed + 1);
  });

  it('a URL the guard refuses is not a request, and is not timed', async () => {
    const failed = await outboundCount('webhook', 'failed');
    const res = await postWebhook({
      url: 'https://169.254.169.254/',
      body: '{}',
      headers: {},
      guard: loopback,
    });
    expect(res.error).toBe('webhook_url_blocked');
    expect(await outboundCount('webhook', 'failed')).toBe(failed);
  });

  it('a Slack incoming-webhook send through the guarded fetch', async () => {
    const ok = await outboundCount('slack_webhook', 'ok');
    const guarded = makeGuardedFetch(() => loopback);
    const res = await guarded(`http://hooks.test:${port}/`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    expect(await outboundCount('slack_webhook', 'ok')).toBe(ok + 1);
  });
});
