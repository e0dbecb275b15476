import { describe, expect, it } from "vitest";
import { Sfc32 } from "../../src/sketch/random-vectors.js";
import { beamScan, beamScanPairs, PairList } from "../../src/pleb/beam-scan.js";
import { BitPermutation } from "../../src/pleb/permutation.js";
import { sortKeys } from "../../src/pleb/sort-keys.js";
import { sortOrder } from "../../src/util/radix-order.js";
import { flipBits, naiveDistance, randomStore } from "./helpers.js";

type Triple = [number, number, number];

function naiveBeam(
  store: Uint32Array,
  W: number,
  order: Uint32Array,
  beam: number,
  maxDistance: number,
): Triple[] {
  const out: Triple[] = [];
  for (let p = 0; p < order.length; p++) {
    for (let q = p + 1; q <= p + beam && q < order.length; q++) {
      const d = naiveDistance(store, W, order[p], order[q]);
      if (d <= maxDistance) {
        out.push([Math.min(order[p], order[q]), Math.max(order[p], order[q]), d]);
      }
    }
  }
  return out;
}

function triples(list: Uint32Array): Triple[] {
  const out: Triple[] = [];
  for (let k = 0; k < list.length; k += 3) out.push([list[k], list[k + 1], list[k + 2]]);
  return out;
}

describe("beamScan", () => {
  const W = 4;
  const n = 120;
  const store = randomStore(n, W, 77);
  const r = new Sfc32(77, 1);
  // Clusters of near copies at distances 0 … 20 so pairs straddle the threshold.
  for (let i = 0; i < n; i++) {
    if (i % 4 !== 0) {
      const src = i - (i % 4);
      store.copyWithin(i * W, src * W, src * W + W);
      flipBits(store, W, i, (i * 5) % 21, r);
    }
  }
  const perm = BitPermutation.atIteration(128, 4, 30, 2);
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  sortKeys(store, W, perm, 0, n, hi, lo);
  const order = sortOrder(hi, lo, n);

  it("reports exactly the pairs a naive scan finds, i < j", () => {
    for (const [beam, max] of [
      [1, 12],
      [5, 12],
      [10, 40],
      [200, 12],
    ]) {
      const got: Triple[] = [];
      const count = beamScan(store, W, order, 0, n, beam, max, (i, j, d) => got.push([i, j, d]));
      const expected = naiveBeam(store, W, order, beam, max);
      expect(got).toEqual(expected);
      expect(count).toBe(expected.length);
      expect(got.every(([i, j]) => i < j)).toBe(true);
    }
  });

  it("splits into chunks and collects into a growable PairList", () => {
    const whole = triples(beamScanPairs(store, W, order, 0, n, 8, 15).toArray());
    const list = new PairList(1); // forces growth
    for (let from = 0; from < n; from += 37) {
      beamScanPairs(store, W, order, from, Math.min(n, from + 37), 8, 15, list);
    }
    expect(triples(list.toArray())).toEqual(whole);
    expect(list.length).toBe(whole.length);
    expect(whole.length).toBeGreaterThan(10);
  });
});
