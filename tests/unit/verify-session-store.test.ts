import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/verify/export-sessions';
import { SessionBatchBuilder, SessionStore } from '@/lib/verify/session-store';

/*
 * The session checks must see exactly the values the lines carry, however
 * compactly they are kept between the workers and finish(): a link that is
 * not 64 lowercase hex characters, an id that is not a canonical decimal, a
 * missing leaf index all come back as they went in.
 */

const hex64 = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((b) => Buffer.from(b).toString('hex'));
const link = fc.oneof(
  { weight: 6, arbitrary: hex64 },
  { weight: 1, arbitrary: hex64.map((h) => h.toUpperCase()) },
  { weight: 1, arbitrary: hex64.map((h) => h.slice(1)) },
  { weight: 1, arbitrary: hex64.map((h) => `${h.slice(0, 63)}g`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 70 }) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, 7, true, '', { a: 1 }, ['x']) },
);
const id = fc.oneof(
  fc.nat().map(String),
  fc.constantFrom('0', '007', '-1', '1e3', '1.5', ' 12', '?', '', '9007199254740993'),
  fc.string({ maxLength: 8 }),
);
const entry = fc.record({
  session: fc.nat(5),
  id,
  sequence: fc.oneof(fc.integer({ min: -1, max: 1000 }), fc.constantFrom(Number.NaN, -0, 1.5)),
  chain: link,
  prev: fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: link }),
  leafIndex: fc.oneof(fc.constant(null), fc.integer({ min: -5, max: 2 ** 40 })),
});

describe('SessionStore', () => {
  it('gives back every line exactly, per session in file order, across batches', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(entry, { maxLength: 40 }), { maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        (chunks, skipped) => {
          const store = new SessionStore();
          const expected = new Map<string, SessionEntry[]>();
          // Two checkers taking turns, as worker threads do, each numbering its sessions.
          const streams = [new Map<string, number>(), new Map<string, number>()];
          let line = 2;
          for (const [c, chunk] of chunks.entries()) {
            const b = new SessionBatchBuilder(c % 2, streams[c % 2]);
            // A skipped batch (lines after the end line) keeps no record, and
            // its stream's later batches still name their sessions right.
            const skip = skipped[c] === true;
            for (const e of chunk) {
              const key = `host\u0000s-${e.session}`;
              const prevHex = b.push(key, line, e.id, e.sequence, e.chain, e.prev, e.leafIndex);
              expect(prevHex).toBe(typeof e.prev === 'string' && /^[0-9a-f]{64}$/.test(e.prev));
              line++;
              if (skip) continue;
              const list = expected.get(key) ?? [];
              expected.set(key, list);
              list.push({
                line: line - 1,
                id: e.id,
                sequence: e.sequence,
                chain: e.chain as string,
                prev: e.prev as string | null,
                leafIndex: e.leafIndex,
              });
            }
            // Through structured clone, as between threads.
            if (skip) store.skip(structuredClone(b.build()));
            else store.add(structuredClone(b.build()));
          }
          const got = new Map(store.bySession());
          expect([...got.keys()]).toEqual([...expected.keys()]);
          for (const [key, list] of expected) expect(got.get(key)).toEqual(list);
          // Object.is: -0 and NaN sequences too.
          for (const [key, list] of expected) {
            const back = got.get(key) ?? [];
            for (let i = 0; i < list.length; i++)
              expect(Object.is(back[i]?.sequence, list[i]?.sequence)).toBe(true);
          }
          const lines = new Set([2, line - 1]);
          for (const [l, { key, entry: e }] of store.onLines(lines)) {
            expect(expected.get(key)?.find((x) => x.line === l)).toEqual(e);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
