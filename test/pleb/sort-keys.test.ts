import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Sfc32 } from "../../src/sketch/random-vectors.js";
import { BitPermutation } from "../../src/pleb/permutation.js";
import { keyOrder, lowKey, sortKeys } from "../../src/pleb/sort-keys.js";
import { sortOrder } from "../../src/util/radix-order.js";
import { bit, randomStore } from "./helpers.js";

/** The first 64 permuted bits of signature i as a string of 0/1. */
function permutedPrefix(store: Uint32Array, W: number, perm: BitPermutation, i: number): string {
  let s = "";
  for (let k = 0; k < 64; k++) s += bit(store, W, i, perm.positions[k]);
  return s;
}

function naiveOrder(store: Uint32Array, W: number, perm: BitPermutation, n: number): number[] {
  const keys = Array.from({ length: n }, (_, i) => permutedPrefix(store, W, perm, i));
  return Array.from({ length: n }, (_, i) => i).sort((a, b) =>
    keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : a - b,
  );
}

describe("sortKeys", () => {
  it("packs the first 64 permuted bits, bit 0 most significant", () => {
    const W = 4;
    const n = 50;
    const store = randomStore(n, W, 21);
    const perm = new BitPermutation(128, 3);
    perm.shift(500);
    const hi = new Uint32Array(n);
    const lo = new Uint32Array(n);
    // Two disjoint ranges, as two workers would fill them.
    sortKeys(store, W, perm, 0, 20, hi, lo);
    sortKeys(store, W, perm, 20, n, hi, lo);
    for (let i = 0; i < n; i++) {
      const s = permutedPrefix(store, W, perm, i);
      expect(hi[i]).toBe(parseInt(s.slice(0, 32), 2));
      expect(lo[i]).toBe(parseInt(s.slice(32), 2));
    }
    expect(() => sortKeys(store, 2, perm, 0, 1, hi, lo)).toThrow(RangeError);
  });
});

describe("sortOrder", () => {
  it("equals a naive sort of the permuted prefixes, ties by index", () => {
    const W = 8;
    const n = 400;
    const store = randomStore(n, W, 5);
    const r = new Sfc32(5, 9);
    // Many duplicates and shared prefixes: copy signatures and clear/keep leading bits.
    for (let i = 0; i < n; i++) {
      if (i % 3 === 0) store.copyWithin(i * W, ((i * 7) % n) * W, ((i * 7) % n) * W + W);
      if (i % 5 === 0) store[i * W + (r.nextUint32() % W)] = 0;
      if (i % 11 === 0) store.fill(0, i * W, i * W + W);
    }
    for (const shifts of [0, 10, 300]) {
      const perm = BitPermutation.atIteration(256, 17, shifts, 1);
      const hi = new Uint32Array(n);
      const lo = new Uint32Array(n);
      sortKeys(store, W, perm, 0, n, hi, lo);
      expect(Array.from(sortOrder(hi, lo, n))).toEqual(naiveOrder(store, W, perm, n));
    }
  });

  it("sorts by (hi, lo, index) as unsigned numbers over all digits", () => {
    const n = 5000;
    const r = new Sfc32(8, 8);
    const hi = new Uint32Array(n);
    const lo = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      // Few distinct values per word so ties reach every digit, including the top bit.
      hi[i] = [0, 1, 0x7ff, 0x800, 0x80000000, 0xffffffff][r.nextBelow(6)] ^ (r.nextBelow(4) << 21);
      lo[i] = [0, 0x3ff, 0x400000, 0xffffffff][r.nextBelow(4)] ^ r.nextBelow(3);
    }
    const expected = Array.from({ length: n }, (_, i) => i).sort(
      (a, b) => hi[a] - hi[b] || lo[a] - lo[b] || a - b,
    );
    expect(Array.from(sortOrder(hi, lo, n))).toEqual(expected);
    expect(Array.from(sortOrder(new Uint32Array(3), new Uint32Array(3), 3))).toEqual([0, 1, 2]);
    expect(sortOrder(hi, lo, 0).length).toBe(0);
  });
});

describe("keyOrder", () => {
  it("gives sortOrder's order of sortKeys' keys (lo computed only for ties of hi)", () => {
    // Signatures that share their first 32 permuted bits in runs of every length, up to past
    // the insertion sort's: copies of a few bases with bits flipped past the high key.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 2 ** 31 }), fc.integer({ min: 0, max: 400 }), (n, bases, seed, shifts) => {
        const W = 4;
        const store = randomStore(n, W, seed);
        const r = new Sfc32(seed, 3);
        const perm = BitPermutation.atIteration(W * 32, seed, shifts, 1);
        for (let i = bases; i < n; i++) {
          const src = r.nextBelow(bases);
          store.copyWithin(i * W, src * W, src * W + W);
          // Flip permuted bits 32 … 127 only: the high key stays the base's.
          for (let f = r.nextBelow(3); f > 0; f--) {
            const p = perm.positions[32 + r.nextBelow(96)];
            store[i * W + (p >>> 5)] ^= 1 << (p & 31);
          }
        }
        const hi = new Uint32Array(n);
        const lo = new Uint32Array(n);
        sortKeys(store, W, perm, 0, n, hi, lo);
        const expected = sortOrder(hi, lo, n);
        const order = new Uint32Array(n);
        const [keyHi, keyLo] = [new Uint32Array(n), new Uint32Array(n)];
        keyOrder(store, W, perm, keyHi, keyLo, order);
        expect(Array.from(order)).toEqual(Array.from(expected));
        expect(Array.from(keyHi)).toEqual(Array.from(hi));
        for (let i = 0; i < n; i++) expect(lowKey(store, W, perm, i)).toBe(lo[i]);
      }),
      { seed: 33, numRuns: 200 },
    );
  });
});
