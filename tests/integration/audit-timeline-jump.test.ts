import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JumpNav } from '@/app/audit/sessions/[id]/jump-nav';
import {
  getSessionTimeline,
  type SessionTimeline,
  TIMELINE_PAGE_SIZE,
} from '@/lib/server/audit/timeline';
import { insertRows, seedHostRow, seedUser } from './audit-seed';
import { closeTestDb, truncateAll } from './helpers/db';

/**
 * Issue 16 item 3: a session larger than a page is entered where it
 * matters — at a sequence, at a moment — and its holes are listed above the
 * first page, each linking to the page that shows it.
 */

type Actor = { id: string; roles: ('admin' | 'reviewer' | 'auditor')[] };

const SESSION = 'big-session';
/** Sequences 0..SIZE-1 minus the holes. */
const SIZE = 350;
const HOLES = [
  [120, 124],
  [301, 301],
] as const;
const START = Date.UTC(2026, 11, 1, 9, 0, 0);
/** One record a second, in sequence order. */
const receivedAt = (sequence: number) => new Date(START + sequence * 1000);

let auditor: Actor;
let host: string;

const missing = (s: number) => HOLES.some(([from, to]) => s >= from && s <= to);

function timeline(t: SessionTimeline) {
  if (t.kind !== 'timeline') throw new Error(`expected a timeline, got ${t.kind}`);
  return t;
}

beforeAll(async () => {
  await truncateAll();
  auditor = (await seedUser('jump@example.com', ['auditor'])) as Actor;
  host = await seedHostRow('jump-host');
  const sequences = Array.from({ length: SIZE }, (_, s) => s).filter((s) => !missing(s));
  await insertRows(
    host,
    sequences.map((sequence) => ({
      sessionId: SESSION,
      sequence,
      receivedAt: receivedAt(sequence),
    })),
  );
});

afterAll(async () => {
  await truncateAll();
  await closeTestDb();
});

describe('session timeline of a large session', () => {
  it('shows one page of TIMELINE_PAGE_SIZE entries from the start', async () => {
    const t = timeline(await getSessionTimeline(auditor, { sessionId: SESSION, hostId: host }));
    expect(TIMELINE_PAGE_SIZE).toBeLessThan(SIZE);
    expect(t.entries).toHaveLength(TIMELINE_PAGE_SIZE);
    expect(t.entries[0]?.sequence).toBe(0);
    expect(t.after).toBe(-1);
    expect(t.nextAfter).toBe(TIMELINE_PAGE_SIZE - 1);
  });

  it('jumps to a sequence: the page starts there', async () => {
    const t = timeline(
      await getSessionTimeline(auditor, { sessionId: SESSION, hostId: host, fromSequence: 200 }),
    );
    expect(t.after).toBe(199);
    expect(t.entries[0]?.sequence).toBe(200);
    expect(t.entries[0]?.gapBefore).toBeNull();
  });

  it('jumps into a hole: the page starts at the next stored sequence with the hole flagged', async () => {
    const t = timeline(
      await getSessionTimeline(auditor, { sessionId: SESSION, hostId: host, fromSequence: 121 }),
    );
    expect(t.entries[0]?.sequence).toBe(125);
    expect(t.entries[0]?.gapBefore).toEqual({ from: 121, to: 124 });
  });

  it('jumps to a moment: the first record received at or after it', async () => {
    const at = new Date(receivedAt(250).getTime() - 500);
    const t = timeline(
      await getSessionTimeline(auditor, { sessionId: SESSION, hostId: host, fromTime: at }),
    );
    expect(t.entries[0]?.sequence).toBe(250);
    // A moment inside a hole lands on the record after it.
    const inHole = timeline(
      await getSessionTimeline(auditor, {
        sessionId: SESSION,
        hostId: host,
        fromTime: receivedAt(122),
      }),
    );
    expect(inHole.entries[0]?.sequence).toBe(125);
  });

  it('a moment after the last record gives an empty page, not the start', async () => {
    const t = timeline(
      await getSessionTimeline(auditor, {
        sessionId: SESSION,
        hostId: host,
        fromTime: receivedAt(SIZE + 60),
      }),
    );
    expect(t.entries).toEqual([]);
    expect(t.nextAfter).toBeNull();
  });

  it('lists every hole above the first page, each linking to the page that shows it', async () => {
    const t = timeline(await getSessionTimeline(auditor, { sessionId: SESSION, hostId: host }));
    expect('error' in t.chain ? t.chain.error : t.chain.gaps).toEqual([
      { after: 119, before: 125 },
      { after: 300, before: 302 },
    ]);
    const base = `/audit/sessions/${SESSION}?host=${host}`;
    const html = renderToStaticMarkup(
      createElement(JumpNav, {
        base,
        hostId: host,
        integrity: t.integrity,
        sessionRecords: t.host.records,
      }),
    );
    const list = html.match(/<p[^>]*data-testid="gap-list"[^>]*>(.*?)<\/p>/)?.[1] ?? '';
    const links = [...list.matchAll(/href="([^"]+)"[^>]*>([^<]+)</g)].map((m) => [
      (m[1] as string).replaceAll('&amp;', '&'),
      m[2],
    ]);
    expect(links).toEqual([
      [`${base}&seq=119`, '120–124'],
      [`${base}&seq=300`, '301'],
    ]);
    // The link's page shows the hole: it starts just before it.
    const linked = timeline(
      await getSessionTimeline(auditor, { sessionId: SESSION, hostId: host, fromSequence: 300 }),
    );
    expect(linked.entries[1]?.gapBefore).toEqual({ from: 301, to: 301 });
    expect(html).toContain('name="seq"');
    expect(html).toContain('name="at"');
  });
});
