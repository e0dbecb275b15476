import { describe, expect, it } from "vitest";
import { Sfc32 } from "../../src/sketch/random-vectors.js";
import { beamScan } from "../../src/pleb/beam-scan.js";
import { hammingDistance, maxDistanceFor } from "../../src/pleb/hamming.js";
import { BitPermutation } from "../../src/pleb/permutation.js";
import { sortKeys } from "../../src/pleb/sort-keys.js";
import { sortOrder } from "../../src/util/radix-order.js";
import { flipBits, randomStore } from "./helpers.js";

describe("PLEB end to end", () => {
  it("finds a subset of the brute-force pairs with high recall", () => {
    // 300 signatures of 1024 bits: 150 random originals and 150 near copies (of originals,
    // and every third of an earlier copy: chains and siblings), each with 4 … 70 bits flipped,
    // so planted pairs fall both inside and outside threshold 0.95 (maxDistance 51).
    const bits = 1024;
    const W = bits / 32;
    const n = 300;
    const store = randomStore(n, W, 1);
    const r = new Sfc32(1, 2);
    for (let i = 150; i < n; i++) {
      const src = i % 3 === 0 && i > 150 ? 150 + r.nextBelow(i - 150) : r.nextBelow(150);
      store.copyWithin(i * W, src * W, src * W + W);
      flipBits(store, W, i, 4 + r.nextBelow(67), r);
    }
    const maxDistance = maxDistanceFor(bits, 0.95);

    const truth = new Set<string>();
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        if (hammingDistance(store, i, j, W) <= maxDistance) truth.add(`${i},${j}`);
      }
    }

    const found = new Map<string, number>();
    const perm = new BitPermutation(bits, 12345);
    const hi = new Uint32Array(n);
    const lo = new Uint32Array(n);
    const beam = 10;
    const shiftCount = 50;
    let afterFirst = 0;
    for (let it = 0; it < 30; it++) {
      sortKeys(store, W, perm, 0, n, hi, lo);
      const order = sortOrder(hi, lo, n);
      beamScan(store, W, order, 0, n, beam, maxDistance, (i, j, d) => found.set(`${i},${j}`, d));
      perm.shift(shiftCount);
      if (it === 0) afterFirst = found.size;
    }

    // Never a false pair, and the reported distance is the true one.
    for (const [key, d] of found) {
      expect(truth.has(key)).toBe(true);
      const [i, j] = key.split(",").map(Number);
      expect(d).toBe(hammingDistance(store, i, j, W));
    }
    // Observed: 124 true pairs; 115 found by the first iteration (identity permutation), all
    // 124 after 30. With permutation seeds 1 … 8 instead: 120 … 124 after 30 (recall ≥ 0.968).
    // Asserted with margin: recall ≥ 0.93, and later iterations (the transpositions) add pairs.
    expect(truth.size).toBe(124);
    expect(found.size / truth.size).toBeGreaterThanOrEqual(0.93);
    expect(found.size).toBeGreaterThan(afterFirst);
  });
});
