import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendLeaves,
  assembleInclusion,
  EMPTY_FRONTIER,
  frontierRoot,
  fromBase64,
  fromHex,
  hashFromBase64,
  hashFromHex,
  InclusionBatchVerifier,
  leafHash,
  type StoredSubtree,
  subtreeKey,
  toBase64,
  toHex,
  verifyInclusion,
  verifyInclusionBatch,
} from '@/lib/proof';

/*
 * The batch verifier must answer exactly what `verifyInclusion` answers
 * (itself checked against the RFC oracle in proof-merkle.test.ts) for every
 * entry, in any order, however valid and tampered entries interleave.
 */

function buildLog(n: number) {
  const leaves = Array.from({ length: n }, (_, i) =>
    leafHash(new TextEncoder().encode(`record ${i}`)),
  );
  const { created, frontier } = appendLeaves(EMPTY_FRONTIER, leaves);
  const store = new Map<string, Uint8Array>(
    created.map((s: StoredSubtree) => [subtreeKey(s.level, s.index), s.hash]),
  );
  return { leaves, store, root: frontierRoot(frontier) };
}

type Entry = { leafHash: Uint8Array; index: number; proof: Uint8Array[] };

/** One way to spoil an entry, chosen by `kind`; `at` picks the element, byte or offset. */
function tamper(e: Entry, kind: number, at: number, size: number): Entry {
  const flip = (b: Uint8Array) => {
    const c = new Uint8Array(b);
    c[at % 32] ^= 1 << (at % 8);
    return c;
  };
  switch (kind) {
    case 0:
      return e;
    case 1:
      return { ...e, leafHash: flip(e.leafHash) };
    case 2:
      return e.proof.length === 0
        ? { ...e, leafHash: flip(e.leafHash) }
        : { ...e, proof: e.proof.map((p, k) => (k === at % e.proof.length ? flip(p) : p)) };
    case 3:
      return { ...e, index: (e.index + 1 + (at % Math.max(1, size - 1))) % size };
    case 4:
      return { ...e, proof: e.proof.slice(0, -1) };
    default:
      return { ...e, proof: [...e.proof, e.proof[0] ?? e.leafHash] };
  }
}

describe('InclusionBatchVerifier', () => {
  it('agrees with verifyInclusion on every entry of random mixes of valid and tampered proofs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3000 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 5 }), fc.nat()), { maxLength: 300 }),
        (n, picks) => {
          const { leaves, store, root } = buildLog(n);
          const entries = picks.map(([u, kind, at]) => {
            const index = u % n;
            const valid = {
              leafHash: leaves[index],
              index,
              proof: assembleInclusion(index, n, store),
            };
            // Valid entries dominate so later ones meet remembered nodes.
            return tamper(valid, kind < 3 ? 0 : kind, at, n);
          });
          const single = entries.map((e) => verifyInclusion(e.leafHash, e.index, n, e.proof, root));
          expect(verifyInclusionBatch(n, root, entries)).toEqual(single);
          const hex = new InclusionBatchVerifier(n, root);
          const viaHex = entries.map((e) =>
            hex.verifyHex(toHex(e.leafHash), e.index, e.proof.map(toHex)),
          );
          expect(viaHex).toEqual(single);
        },
      ),
      { numRuns: 120 },
    );
  });

  it('answers over hex what verifyInclusion answers over the strictly decoded bytes', () => {
    // Spoils one hex element (the leaf, or a proof element at `at`) in a way
    // only the text form can be spoiled: case, length, characters, type.
    const spoil = (x: string, how: number, at: number): unknown => {
      const i = at % 64;
      switch (how) {
        case 0:
          return x.slice(0, i) + x.charAt(i).toUpperCase() + x.slice(i + 1);
        case 1:
          return `${x.slice(0, i)}g${x.slice(i + 1)}`;
        case 2:
          return x.slice(0, i) + String.fromCharCode(0x660 + (at % 10)) + x.slice(i + 1);
        case 3:
          return x.slice(0, -2);
        case 4:
          return `${x}00`;
        case 5:
          return null;
        default:
          return x.toUpperCase();
      }
    };
    const strict = (x: unknown) => (typeof x === 'string' ? hashFromHex(x) : null);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2000 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(9), fc.nat(6), fc.nat()), { maxLength: 200 }),
        (n, picks) => {
          const { leaves, store, root } = buildLog(n);
          const v = new InclusionBatchVerifier(n, root);
          for (const [u, what, how, at] of picks) {
            const index = u % n;
            let leaf: unknown = toHex(leaves[index]);
            const proof: unknown[] = assembleInclusion(index, n, store).map(toHex);
            // Mostly genuine, so later entries meet remembered nodes.
            if (what === 1) leaf = spoil(leaf as string, how, at);
            else if (what === 2 && proof.length > 0)
              proof[at % proof.length] = spoil(proof[at % proof.length] as string, how, at);
            const bytes = [leaf, ...proof].map(strict);
            const expected =
              bytes.every((b) => b !== null) &&
              verifyInclusion(
                bytes[0] as Uint8Array,
                index,
                n,
                bytes.slice(1) as Uint8Array[],
                root,
              );
            expect(v.verifyHex(leaf as string, index, proof as string[])).toBe(expected);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('still fails a tampered element above the point where the path meets a verified node', () => {
    const n = 1000;
    const { leaves, store, root } = buildLog(n);
    for (let i = 0; i < n; i++) {
      const v = new InclusionBatchVerifier(n, root);
      const j = (i + 1) % n;
      expect(v.verify(leaves[j], j, assembleInclusion(j, n, store))).toBe(true);
      const proof = assembleInclusion(i, n, store);
      for (let e = 0; e < proof.length; e++) {
        const bad = proof.map((p, k) =>
          k === e ? Uint8Array.from(p, (x, b) => (b === 0 ? x ^ 1 : x)) : p,
        );
        expect(v.verify(leaves[i], i, bad)).toBe(false);
      }
      // The failures taught it nothing wrong: the genuine proof still passes.
      expect(v.verify(leaves[i], i, proof)).toBe(true);
    }
  });

  it('verifies every leaf of a tree in order with about one hash per record', () => {
    const n = 4096 + 37;
    const { leaves, store, root } = buildLog(n);
    const v = new InclusionBatchVerifier(n, root);
    for (let i = 0; i < n; i++)
      expect(v.verify(leaves[i], i, assembleInclusion(i, n, store))).toBe(true);
    // Every node of the tree is known once, and nothing else.
    expect(v.knownNodes).toBe(2 * n - 1);
  });

  it('refuses everything under a malformed tree head, and malformed entries', () => {
    const { leaves, store, root } = buildLog(10);
    const proof = assembleInclusion(3, 10, store);
    expect(new InclusionBatchVerifier(0, root).verify(leaves[3], 3, proof)).toBe(false);
    expect(new InclusionBatchVerifier(10, root.subarray(1)).verify(leaves[3], 3, proof)).toBe(
      false,
    );
    expect(new InclusionBatchVerifier(10.5, root).verify(leaves[3], 3, proof)).toBe(false);
    const v = new InclusionBatchVerifier(10, root);
    for (const x of [null, 'x', -1, 10, 1.5, {}, new Uint8Array(31)] as never[]) {
      expect(v.verify(x, 3, proof)).toBe(false);
      expect(v.verify(leaves[3], x, proof)).toBe(false);
      expect(v.verify(leaves[3], 3, x)).toBe(false);
      expect(v.verify(leaves[3], 3, [...proof.slice(1), x])).toBe(false);
    }
    expect(v.verify(leaves[3], 3, proof)).toBe(true);
    // Hex: lowercase only, every element (compared or hashed) well-formed.
    const h = new InclusionBatchVerifier(10, root);
    const hexProof = proof.map(toHex);
    expect(h.verifyHex(toHex(leaves[3]).toUpperCase(), 3, hexProof)).toBe(false);
    expect(
      h.verifyHex(toHex(leaves[3]), 3, [hexProof[0].toUpperCase(), ...hexProof.slice(1)]),
    ).toBe(false);
    expect(h.verifyHex(toHex(leaves[3]), 3, [...hexProof.slice(0, -1), 'g'.repeat(64)])).toBe(
      false,
    );
    expect(h.verifyHex(toHex(leaves[3]), 3, hexProof)).toBe(true);
    // Now every element is remembered; an uppercase copy still fails by comparison.
    expect(
      h.verifyHex(
        toHex(leaves[3]),
        3,
        hexProof.map((x) => x.toUpperCase()),
      ),
    ).toBe(false);
    expect(h.verifyHex(toHex(leaves[3]).toUpperCase(), 3, hexProof)).toBe(false);
  });
});

describe('hash encodings', () => {
  it('round-trips and refuses anything but the canonical text', () => {
    const h = leafHash(Uint8Array.of(7));
    expect(hashFromHex(toHex(h))).toEqual(h);
    expect(hashFromBase64(toBase64(h))).toEqual(h);
    expect(toHex(Uint8Array.of(0, 255, 16))).toBe('00ff10');
    expect(toBase64(Uint8Array.of(0, 255, 16))).toBe('AP8Q');
    for (const bad of ['0', 'zz', '0G', 'AB', ' 00', '00 ']) expect(fromHex(bad)).toBeNull();
    expect(hashFromHex(toHex(h).slice(2))).toBeNull();
    expect(hashFromHex(`${toHex(h)}00`)).toBeNull();
    // 'AQ=' lacks padding; 'AR==' has non-zero unused bits (it would decode like 'AQ==').
    for (const bad of ['AQ=', 'AR==', 'A===', 'AQ==\n', 'AP-Q', 'AP_Q'])
      expect(fromBase64(bad)).toBeNull();
    expect(fromBase64('AQ==')).toEqual(Uint8Array.of(1));
    expect(hashFromBase64('AQ==')).toBeNull();
  });
});
