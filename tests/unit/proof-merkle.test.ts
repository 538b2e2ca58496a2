import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendLeaves,
  assembleConsistency,
  assembleInclusion,
  assembleRoot,
  consistencyPlan,
  EMPTY_FRONTIER,
  emptyRoot,
  type Frontier,
  frontierRoot,
  inclusionPlan,
  leafHash,
  MerkleStoreError,
  nodeHash,
  perfectCover,
  rootPlan,
  type StoredSubtree,
  subtreeKey,
  verifyConsistency,
  verifyInclusion,
} from '@/lib/proof';

/*
 * The oracle: RFC 9162 §2.1's recursive definitions, written out naively
 * (MTH, PATH, PROOF/SUBPROOF over arrays of leaf data) with their own
 * SHA-256, sharing no code with lib/proof.
 */
const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};
const split = (n: number) => {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
};
function MTH(D: Uint8Array[]): Uint8Array {
  if (D.length === 0) return sha();
  if (D.length === 1) return sha(Uint8Array.of(0), D[0]);
  const k = split(D.length);
  return sha(Uint8Array.of(1), MTH(D.slice(0, k)), MTH(D.slice(k)));
}
function PATH(m: number, D: Uint8Array[]): Uint8Array[] {
  if (D.length === 1) return [];
  const k = split(D.length);
  return m < k
    ? [...PATH(m, D.slice(0, k)), MTH(D.slice(k))]
    : [...PATH(m - k, D.slice(k)), MTH(D.slice(0, k))];
}
function SUBPROOF(m: number, D: Uint8Array[], b: boolean): Uint8Array[] {
  if (m === D.length) return b ? [] : [MTH(D)];
  const k = split(D.length);
  return m <= k
    ? [...SUBPROOF(m, D.slice(0, k), b), MTH(D.slice(k))]
    : [...SUBPROOF(m - k, D.slice(k), false), MTH(D.slice(0, k))];
}
const PROOF = (m: number, D: Uint8Array[]) => SUBPROOF(m, D, true);

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const hexAll = (bs: Uint8Array[]) => bs.map(hex);

/** One log of leaves; a tree of size n is its first n leaves. */
const MAX = 10_000;
const DATA = Array.from({ length: MAX }, (_, i) => new TextEncoder().encode(`leaf ${i}`));
const D = (n: number) => DATA.slice(0, n);

/**
 * Every perfect subtree of the whole log, built level by level from the
 * oracle's leaf hashes, independently of appendLeaves.
 */
const STORE = (() => {
  const store = new Map<string, Uint8Array>();
  let level: Uint8Array[] = DATA.map((d) => sha(Uint8Array.of(0), d));
  for (let l = 0; level.length > 0; l++) {
    for (const [i, h] of level.entries()) store.set(subtreeKey(l, i), h);
    const next: Uint8Array[] = [];
    for (let i = 0; i + 1 < level.length; i += 2)
      next.push(sha(Uint8Array.of(1), level[i], level[i + 1]));
    level = next;
  }
  return store;
})();

/** The store as a log of size n holds it: nothing that reaches past leaf n. */
const storeOf = (n: number) => (level: number, index: number) =>
  (index + 1) * 2 ** level <= n ? STORE.get(subtreeKey(level, index)) : undefined;

const rootCache = new Map<number, Uint8Array>();
const root = (n: number) => {
  if (!rootCache.has(n)) rootCache.set(n, MTH(D(n)));
  return rootCache.get(n)!;
};

const flip = (b: Uint8Array, byte: number) => {
  const c = new Uint8Array(b);
  c[byte % c.length] ^= 0x01 << (byte % 8);
  return c;
};

describe('hashing (RFC 9162 §2.1.1)', () => {
  it('matches the published CT test vectors, not values this code produced', () => {
    // Leaves and roots from the Certificate Transparency reference test data.
    const leaves = [
      '',
      '00',
      '10',
      '2021',
      '3031',
      '40414243',
      '5051525354555657',
      '606162636465666768696a6b6c6d6e6f',
    ].map((h) => new Uint8Array(Buffer.from(h, 'hex')));
    const roots = [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
      'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
      '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
      '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
      'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
      '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
    ];
    expect(hex(emptyRoot())).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    let frontier: Frontier = EMPTY_FRONTIER;
    leaves.forEach((data, i) => {
      frontier = appendLeaves(frontier, [leafHash(data)]).frontier;
      expect(hex(frontierRoot(frontier))).toBe(roots[i]);
    });
    const path0 = [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ];
    expect(hexAll(PATH(0, leaves))).toEqual(path0);
    expect(hexAll(PROOF(1, leaves))).toEqual(path0);
  });

  it('separates leaves from nodes with the 0x00 / 0x01 prefixes', () => {
    const a = leafHash(Uint8Array.of(1, 2));
    const b = leafHash(Uint8Array.of(3));
    expect(hex(a)).toBe(hex(sha(Uint8Array.of(0, 1, 2))));
    expect(hex(nodeHash(a, b))).toBe(hex(sha(Uint8Array.of(1), a, b)));
    // A node's preimage hashed as a leaf is a different hash.
    expect(hex(leafHash(new Uint8Array([...a, ...b])))).not.toBe(hex(nodeHash(a, b)));
  });

  it('hands out a fresh empty root each time', () => {
    const r = emptyRoot();
    r[0] ^= 0xff;
    expect(hex(emptyRoot())).toBe(hex(sha()));
  });
});

describe('planning: perfect covers', () => {
  it('decomposes [0, n) into the binary decomposition of n, largest first', () => {
    expect(perfectCover(0, 13)).toEqual([
      { level: 3, index: 0 },
      { level: 2, index: 2 },
      { level: 0, index: 12 },
    ]);
    expect(perfectCover(8, 13)).toEqual([
      { level: 2, index: 2 },
      { level: 0, index: 12 },
    ]);
    expect(perfectCover(16, 32)).toEqual([{ level: 4, index: 1 }]);
    expect(rootPlan(0)).toEqual([]);
  });

  it('refuses ranges that are no node of a tree', () => {
    for (const [s, e] of [
      [3, 5],
      [2, 6],
      [0, 0],
      [5, 4],
      [-1, 1],
      [0.5, 2],
    ]) {
      expect(() => perfectCover(s, e)).toThrow(RangeError);
    }
    expect(() => inclusionPlan(5, 5)).toThrow(RangeError);
    expect(() => consistencyPlan(0, 5)).toThrow(RangeError);
    expect(() => consistencyPlan(6, 5)).toThrow(RangeError);
  });

  it('needs O(log n) subtrees for any proof in a large log', () => {
    const n = 1_000_003;
    for (const i of [0, 1, 500_000, n - 2, n - 1]) {
      expect(inclusionPlan(i, n).subtrees.length).toBeLessThanOrEqual(2 * 21);
    }
    expect(consistencyPlan(999_999, n).subtrees.length).toBeLessThanOrEqual(2 * 21);
  });

  it('fails loudly when the store lacks a subtree', () => {
    const err = (() => {
      try {
        assembleRoot(13, new Map());
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(MerkleStoreError);
    expect((err as MerkleStoreError).code).toBe('subtree_missing');
  });
});

/** Checks every generator and verifier for (n, one index, one m) against the oracle. */
function checkInclusion(n: number, i: number) {
  const plan = inclusionPlan(i, n);
  const wanted = new Map(plan.subtrees.map((s) => [subtreeKey(s.level, s.index), s]));
  // Exactly the planned subtrees are read, and nothing else.
  const read = new Set<string>();
  const lookup = (level: number, index: number) => {
    read.add(subtreeKey(level, index));
    return wanted.has(subtreeKey(level, index)) ? storeOf(n)(level, index) : undefined;
  };
  const proof = assembleInclusion(i, n, lookup);
  expect(hexAll(proof)).toEqual(hexAll(PATH(i, D(n))));
  expect(read.size).toBe(wanted.size);
  expect(verifyInclusion(leafHash(DATA[i]), i, n, proof, root(n))).toBe(true);
  return proof;
}

function checkConsistency(m: number, n: number) {
  const proof = assembleConsistency(m, n, storeOf(n));
  expect(hexAll(proof)).toEqual(hexAll(PROOF(m, D(n))));
  expect(verifyConsistency(m, n, proof, root(m), root(n))).toBe(true);
  return proof;
}

describe('store-backed generator and verifiers against the oracle', () => {
  it('every size 1…64: roots, every inclusion proof, every consistency proof', () => {
    for (let n = 1; n <= 64; n++) {
      expect(hex(assembleRoot(n, storeOf(n)))).toBe(hex(root(n)));
      for (let i = 0; i < n; i++) checkInclusion(n, i);
      for (let m = 1; m <= n; m++) checkConsistency(m, n);
    }
    expect(hex(assembleRoot(0, storeOf(0)))).toBe(hex(sha()));
  });

  // Two runs: many small trees, and fewer large ones (the oracle hashes O(n) per proof).
  it.each([
    [65, 1024, 300],
    [1025, MAX, 40],
  ])('random sizes %i…%i', (min, max, numRuns) => {
    fc.assert(
      fc.property(
        fc.integer({ min, max }),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        (n, u, v) => {
          const i = Math.floor(u * n);
          const m = 1 + Math.floor(v * n);
          expect(hex(assembleRoot(n, storeOf(n)))).toBe(hex(root(n)));
          checkInclusion(n, i);
          checkConsistency(m, n);
        },
      ),
      { numRuns },
    );
  });
});

describe('tampering fails verification', () => {
  it('inclusion: any flipped byte, wrong index, wrong tree head, truncated or extended proof', () => {
    const extra = sha(Uint8Array.of(42));
    for (let n = 1; n <= 40; n++) {
      for (let i = 0; i < n; i++) {
        const proof = assembleInclusion(i, n, storeOf(n));
        const leaf = leafHash(DATA[i]);
        const ok = (l: Uint8Array, j: number, size: number, p: Uint8Array[], r: Uint8Array) =>
          verifyInclusion(l, j, size, p, r);
        for (let e = 0; e < proof.length; e++) {
          for (let byte = 0; byte < 32; byte += 5) {
            expect(
              ok(
                leaf,
                i,
                n,
                proof.map((p, k) => (k === e ? flip(p, byte + e) : p)),
                root(n),
              ),
            ).toBe(false);
          }
        }
        expect(ok(flip(leaf, i), i, n, proof, root(n))).toBe(false);
        expect(ok(leaf, i, n, proof, flip(root(n), i))).toBe(false);
        for (let j = 0; j < n; j++) if (j !== i) expect(ok(leaf, j, n, proof, root(n))).toBe(false);
        for (let s = 1; s <= 41; s++)
          if (s !== n) expect(ok(leaf, i, s, proof, root(s))).toBe(false);
        expect(ok(leaf, i, n, [...proof, extra], root(n))).toBe(false);
        expect(ok(leaf, i, n, [extra, ...proof], root(n))).toBe(false);
        if (proof.length > 0) {
          expect(ok(leaf, i, n, proof.slice(1), root(n))).toBe(false);
          expect(ok(leaf, i, n, proof.slice(0, -1), root(n))).toBe(false);
          expect(ok(leaf, i, n, [...proof, proof[proof.length - 1]], root(n))).toBe(false);
        }
      }
    }
  });

  it('consistency: any flipped byte, wrong sizes or roots, truncated or extended proof', () => {
    const extra = sha(Uint8Array.of(42));
    for (let n = 1; n <= 40; n++) {
      for (let m = 1; m <= n; m++) {
        const proof = assembleConsistency(m, n, storeOf(n));
        const ok = (a: number, b: number, p: Uint8Array[], ra: Uint8Array, rb: Uint8Array) =>
          verifyConsistency(a, b, p, ra, rb);
        for (let e = 0; e < proof.length; e++) {
          for (let byte = 0; byte < 32; byte += 7) {
            expect(
              ok(
                m,
                n,
                proof.map((p, k) => (k === e ? flip(p, byte + e) : p)),
                root(m),
                root(n),
              ),
            ).toBe(false);
          }
        }
        expect(ok(m, n, proof, flip(root(m), m), root(n))).toBe(false);
        expect(ok(m, n, proof, root(m), flip(root(n), n))).toBe(false);
        for (let a = 1; a <= 41; a++)
          if (a !== m) expect(ok(a, n, proof, root(a), root(n))).toBe(false);
        for (let b = 1; b <= 41; b++)
          if (b !== n && b >= m) expect(ok(m, b, proof, root(m), root(b))).toBe(false);
        expect(ok(m, n, [...proof, extra], root(m), root(n))).toBe(false);
        expect(ok(m, n, [extra, ...proof], root(m), root(n))).toBe(false);
        if (proof.length > 0) {
          expect(ok(m, n, proof.slice(1), root(m), root(n))).toBe(false);
          expect(ok(m, n, proof.slice(0, -1), root(m), root(n))).toBe(false);
        }
        if (m < n) expect(ok(m, n, proof, root(n), root(m))).toBe(false);
      }
    }
  });

  it('answers false, never throws, on malformed input', () => {
    const leaf = leafHash(DATA[0]);
    const p = assembleInclusion(0, 5, storeOf(5));
    const bad: unknown[] = [
      null,
      undefined,
      'x',
      1.5,
      -1,
      Number.NaN,
      2 ** 60,
      {},
      [],
      new Uint8Array(31),
    ];
    for (const x of bad) {
      const v = x as never;
      expect(verifyInclusion(v, 0, 5, p, root(5))).toBe(false);
      expect(verifyInclusion(leaf, v, 5, p, root(5))).toBe(false);
      expect(verifyInclusion(leaf, 0, v, p, root(5))).toBe(false);
      expect(verifyInclusion(leaf, 0, 5, v, root(5))).toBe(false);
      expect(verifyInclusion(leaf, 0, 5, [...p.slice(1), v], root(5))).toBe(false);
      expect(verifyInclusion(leaf, 0, 5, p, v)).toBe(false);
      const c = assembleConsistency(3, 5, storeOf(5));
      expect(verifyConsistency(v, 5, c, root(3), root(5))).toBe(false);
      expect(verifyConsistency(3, v, c, root(3), root(5))).toBe(false);
      expect(verifyConsistency(3, 5, v, root(3), root(5))).toBe(false);
      expect(verifyConsistency(3, 5, [v, ...c.slice(1)], root(3), root(5))).toBe(false);
      expect(verifyConsistency(3, 5, c, v, root(5))).toBe(false);
      expect(verifyConsistency(3, 5, c, root(3), v)).toBe(false);
    }
    // The RFC's edge rules: index ≥ size; m = 0; m > n; m = n only with an empty proof.
    expect(verifyInclusion(leaf, 5, 5, p, root(5))).toBe(false);
    expect(verifyInclusion(leaf, 0, 0, [], emptyRoot())).toBe(false);
    expect(verifyConsistency(0, 5, [], emptyRoot(), root(5))).toBe(false);
    expect(verifyConsistency(6, 5, [], root(6), root(5))).toBe(false);
    expect(verifyConsistency(5, 5, [], root(5), root(5))).toBe(true);
    expect(verifyConsistency(5, 5, [root(5)], root(5), root(5))).toBe(false);
    expect(verifyConsistency(4, 5, [], root(4), root(5))).toBe(false);
  });
});

describe('appendLeaves', () => {
  it('in random batches reproduces every root and stores each perfect subtree exactly once', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 12 }),
        (batches) => {
          let frontier: Frontier = EMPTY_FRONTIER;
          const stored = new Map<string, StoredSubtree>();
          for (const count of batches) {
            const start = frontier.size;
            const end = Math.min(MAX, start + count);
            const leaves = DATA.slice(start, end).map(leafHash);
            const out = appendLeaves(frontier, leaves);
            for (const s of out.created) {
              const key = subtreeKey(s.level, s.index);
              expect(stored.has(key)).toBe(false);
              stored.set(key, s);
            }
            frontier = out.frontier;
            expect(frontier.size).toBe(end);
            expect(hex(frontierRoot(frontier))).toBe(hex(root(end)));
            expect(frontier.subtrees.map(({ level, index }) => ({ level, index }))).toEqual(
              rootPlan(end),
            );
          }
          // What was stored is the whole perfect-subtree store of that size, hash for hash.
          const n = frontier.size;
          const expected = [...STORE.entries()].filter(([k]) => {
            const [l, i] = k.split(':').map(Number);
            return (i + 1) * 2 ** l <= n;
          });
          expect(stored.size).toBe(expected.length);
          for (const [k, h] of expected) expect(hex(stored.get(k)!.hash)).toBe(hex(h));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses a frontier that is not the compact range of its size', () => {
    const { frontier } = appendLeaves(EMPTY_FRONTIER, DATA.slice(0, 5).map(leafHash));
    const broken: Frontier[] = [
      { size: 6, subtrees: frontier.subtrees },
      { size: 5, subtrees: frontier.subtrees.slice(1) },
      { size: 5, subtrees: [frontier.subtrees[0], { ...frontier.subtrees[1], index: 3 }] },
      {
        size: 5,
        subtrees: [frontier.subtrees[0], { ...frontier.subtrees[1], hash: new Uint8Array(31) }],
      },
    ];
    for (const f of broken) {
      expect(() => appendLeaves(f, [])).toThrow(MerkleStoreError);
      expect(() => frontierRoot(f)).toThrow(/compact range/);
    }
    expect(() => appendLeaves(frontier, [new Uint8Array(3)])).toThrow(TypeError);
  });
});
