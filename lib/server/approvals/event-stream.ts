import 'server-only';
import { onTicketEvent } from './events';

const HEARTBEAT_MS = 20_000;

/**
 * The inbox's live feed as Server-Sent Events: `created`, `decided` and
 * `expired`, each `{type, ticketId, hostId}` (ids only, no payload). Fed by
 * onTicketEvent, which sees this instance's commits and other instances'
 * through Redis. A comment line every 20 s keeps proxies from closing it;
 * at each one `stillAllowed` is asked again (the session may have ended:
 * sign-out, a password change, a disabled user, a lost role) and the stream
 * ends when it says no, or fails. It also ends when `signal` aborts. The page falls back to polling
 * /api/approvals/summary when this fails.
 */
export function ticketEventStream(
  signal: AbortSignal,
  stillAllowed: () => Promise<boolean>,
  heartbeatMs = HEARTBEAT_MS,
): Response {
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          cleanup();
        }
      };
      send('retry: 3000\n: connected\n\n');
      const off = onTicketEvent((e) => {
        send(
          `event: ${e.type}\ndata: ${JSON.stringify({ type: e.type, ticketId: e.ticketId, hostId: e.hostId })}\n\n`,
        );
      });
      const beat = setInterval(() => {
        stillAllowed().then(
          (ok) => (ok ? send(': keep-alive\n\n') : cleanup()),
          () => cleanup(),
        );
      }, heartbeatMs);
      cleanup = () => {
        off();
        clearInterval(beat);
        try {
          controller.close();
        } catch {
          // already closed
        }
        cleanup = () => {};
      };
      signal.addEventListener('abort', () => cleanup());
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  });
}
