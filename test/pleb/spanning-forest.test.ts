import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { beamScanPairs } from "../../src/pleb/beam-scan.js";
import { Triples } from "../../src/util/triples.js";
import { BitPermutation } from "../../src/pleb/permutation.js";
import { sortKeys } from "../../src/pleb/sort-keys.js";
import { SpanningForest, type PairColumns } from "../../src/pleb/spanning-forest.js";
import { Sfc32 } from "../../src/sketch/random-vectors.js";
import { sortOrder } from "../../src/util/radix-order.js";
import { flipBits, randomStore } from "./helpers.js";

type Quad = [i: number, j: number, distance: number, iteration: number];

function quads(c: PairColumns): Quad[] {
  return Array.from(c.i, (i, k) => [i, c.j[k], c.distance[k], c.iteration[k]]);
}

function forestOf(n: number, pairs: readonly Quad[]): SpanningForest {
  const f = new SpanningForest(n);
  for (const [i, j, d, t] of pairs) f.add(i, j, d, t);
  return f;
}

/** Smallest member of each node's component, by repeated relaxation (no union-find). */
function bruteComponents(n: number, pairs: readonly Quad[]): number[] {
  const label = Array.from({ length: n }, (_, k) => k);
  for (let changed = true; changed; ) {
    changed = false;
    for (const [i, j] of pairs) {
      const m = Math.min(label[i], label[j]);
      if (label[i] !== m || label[j] !== m) {
        label[i] = label[j] = m;
        changed = true;
      }
    }
  }
  return label;
}

function canonical(n: number, f: SpanningForest): number[] {
  const labels = new Uint32Array(n);
  f.labelComponents(labels);
  const smallest = new Map<number, number>();
  for (let k = 0; k < n; k++) if (!smallest.has(labels[k])) smallest.set(labels[k], k);
  return Array.from(labels, (l) => smallest.get(l) as number);
}

/** A sequence of pairs over n nodes, iterations non-decreasing (as PLEB offers them). */
const pairSequence = fc.integer({ min: 2, max: 30 }).chain((n) =>
  fc.tuple(
    fc.constant(n),
    fc
      .array(fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 1, max: 9 })), { maxLength: 120 })
      .map((raw) =>
        raw
          .filter(([i, j]) => i !== j)
          .map(([i, j, d, t]): Quad => [Math.min(i, j), Math.max(i, j), d, t])
          .sort((x, y) => x[3] - y[3]),
      ),
  ),
);

describe("SpanningForest", () => {
  it("keeps a pair iff it joins two components, and spans the brute-force components", () => {
    fc.assert(
      fc.property(pairSequence, ([n, pairs]) => {
        const f = forestOf(n, pairs);
        expect(canonical(n, f)).toEqual(bruteComponents(n, pairs));
        const components = new Set(bruteComponents(n, pairs)).size;
        expect(f.size).toBe(n - components);
      }),
    );
  });

  it("groups reduced apart, then together in group order, give the forest of all pairs", () => {
    fc.assert(
      fc.property(pairSequence, fc.array(fc.integer({ min: 0, max: 120 }), { maxLength: 8 }), ([n, pairs], cuts) => {
        const bounds = [0, ...cuts.map((c) => Math.min(c, pairs.length)).sort((x, y) => x - y), pairs.length];
        const merged = new SpanningForest(n);
        for (let g = 0; g + 1 < bounds.length; g++) merged.addColumns(forestOf(n, pairs.slice(bounds[g], bounds[g + 1])).toColumns());
        expect(quads(merged.toColumns())).toEqual(quads(forestOf(n, pairs).toColumns()));
      }),
    );
  });

  it("dropping pairs inside components known before an iteration, in any chunks, changes nothing", () => {
    // Near-copy families, so that many pairs fall within the threshold and repeat across iterations.
    const W = 4;
    const n = 120;
    const store = randomStore(n, W, 3);
    const r = new Sfc32(3, 1);
    for (let k = 40; k < n; k++) {
      store.copyWithin(k * W, (k % 40) * W, (k % 40) * W + W);
      flipBits(store, W, k, 1 + r.nextBelow(12), r);
    }
    const hi = new Uint32Array(n);
    const lo = new Uint32Array(n);
    const labels = new Uint32Array(n);
    const full = new SpanningForest(n);
    const skipping = new SpanningForest(n);
    let skipped = 0;
    for (let t = 1; t <= 12; t++) {
      sortKeys(store, W, BitPermutation.atIteration(W * 32, 7, 20, t - 1), 0, n, hi, lo);
      const order = sortOrder(hi, lo, n);
      const every = beamScanPairs(store, W, order, 0, n, 6, 14).toArray();
      full.addTriples(every, t);
      skipping.labelComponents(labels);
      const chunked = new Triples(1);
      for (let from = 0, to = 0; from < n; from = to) {
        to = Math.min(n, from + 1 + r.nextBelow(30));
        beamScanPairs(store, W, order, from, to, 6, 14, chunked, labels);
      }
      skipped += every.length - chunked.length;
      skipping.addTriples(chunked.toArray(), t);
    }
    expect(skipped).toBeGreaterThan(0);
    expect(full.size).toBeGreaterThan(40);
    expect(quads(skipping.toColumns())).toEqual(quads(full.toColumns()));
  });
});
