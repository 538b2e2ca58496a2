/**
 * Child of bench/records-queries.ts: reads a session timeline (the
 * service's answer, JSON) on stdin and prints the byte length of the
 * session page's view rendered to HTML. Apart because react-dom/server
 * does not run under the react-server condition the services need.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { SessionTimelineView } from '@/app/audit/sessions/[id]/timeline-view';

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const timeline = JSON.parse(input);
  const html = renderToStaticMarkup(
    createElement(SessionTimelineView, { timeline, now: new Date().toISOString() }),
  );
  process.stdout.write(`${Buffer.byteLength(html)}\n`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
