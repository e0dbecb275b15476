import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Sfc32 } from "../../src/sketch/random-vectors.js";
import { beamScan, beamScanPairs, beamScanTs, prefixWords, rankPositions, scatterSorted, type SortedPrefixes } from "../../src/pleb/beam-scan.js";
import { beamScanKernelStatus } from "../../src/pleb/beam-scan-wasm.js";
import { Triples } from "../../src/util/triples.js";
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

  it("splits into chunks and collects into a growable Triples", () => {
    const whole = triples(beamScanPairs(store, W, order, 0, n, 8, 15).toArray());
    const list = new Triples(1); // forces growth
    for (let from = 0; from < n; from += 37) {
      beamScanPairs(store, W, order, from, Math.min(n, from + 37), 8, 15, list);
    }
    expect(triples(list.toArray())).toEqual(whole);
    expect(list.length).toBe(whole.length);
    expect(whole.length).toBeGreaterThan(10);
  });
});

/** Signatures of W words that are near copies of a few bases, so that distances straddle any threshold. */
const signatures = fc.constantFrom(2, 4).chain((W) =>
  fc.record({
    W: fc.constant(W),
    bases: fc.array(fc.array(fc.nat({ max: 0xffffffff }), { minLength: W, maxLength: W }), { minLength: 1, maxLength: 4 }),
    docs: fc.array(fc.record({ base: fc.nat(), flips: fc.array(fc.nat({ max: 32 * W - 1 }), { maxLength: 8 }) }), { minLength: 1, maxLength: 40 }),
  }).map(({ W, bases, docs }) => {
    const store = new Uint32Array(docs.length * W);
    docs.forEach(({ base, flips }, i) => {
      store.set(bases[base % bases.length], i * W);
      for (const b of flips) store[i * W + (b >>> 5)] ^= 1 << (b & 31);
    });
    return { W, n: docs.length, store };
  }),
);

/** A scan's inputs: signatures, an order of them, a beam, a distance bound, chunk cuts and maybe labels. */
const scans = signatures.chain(({ W, n, store }) =>
  fc.record({
    W: fc.constant(W),
    store: fc.constant(store),
    order: fc.shuffledSubarray(Array.from({ length: n }, (_, i) => i), { minLength: n, maxLength: n }).map((o) => Uint32Array.from(o)),
    beam: fc.integer({ min: 1, max: n + 2 }),
    maxDistance: fc.oneof(fc.nat({ max: 12 }), fc.nat({ max: 32 * W })),
    cuts: fc.uniqueArray(fc.integer({ min: 1, max: n }), { maxLength: 4 }).map((c) => [0, ...c.sort((a, b) => a - b).filter((x) => x < n), n]),
    labels: fc.option(fc.array(fc.nat({ max: 3 }), { minLength: n, maxLength: n }).map((l) => Uint32Array.from(l)), { nil: undefined }),
  }),
);

/** Every pair i < j of the store within maxDistance (and, with labels, of different labels), sorted. */
function bruteForce(store: Uint32Array, W: number, n: number, maxDistance: number, labels?: Uint32Array): Triple[] {
  const out: Triple[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (labels !== undefined && labels[i] === labels[j]) continue;
      const d = naiveDistance(store, W, i, j);
      if (d <= maxDistance) out.push([i, j, d]);
    }
  }
  return out;
}

const byPair = (x: Triple, y: Triple) => x[0] - y[0] || x[1] - y[1];

describe("beamScan against brute force (property)", () => {
  it("finds a subset of the brute-force pairs, exactly those within the beam; all of them when the beam covers the order", () => {
    fc.assert(
      fc.property(scans, ({ W, store, order, beam, maxDistance, cuts, labels }) => {
        const n = order.length;
        const got: Triple[] = [];
        for (let c = 0; c + 1 < cuts.length; c++) beamScan(store, W, order, cuts[c], cuts[c + 1], beam, maxDistance, (i, j, d) => got.push([i, j, d]), labels);
        const all = bruteForce(store, W, n, maxDistance, labels);
        const position = new Uint32Array(n);
        order.forEach((doc, p) => (position[doc] = p));
        const withinBeam = all.filter(([i, j]) => Math.abs(position[i] - position[j]) <= beam);
        const sorted = [...got].sort(byPair);
        expect(sorted).toEqual(withinBeam);
        // A subset of brute force, each pair once and with its true distance.
        const known = new Set(all.map((t) => t.join(",")));
        expect(got.every((t) => known.has(t.join(",")))).toBe(true);
        expect(new Set(got.map(([i, j]) => `${i},${j}`)).size).toBe(got.length);
        if (beam >= n - 1) expect(sorted).toEqual(all);
      }),
      { numRuns: 300 },
    );
  });
});

describe("beamScan with fresh signatures (--against-scan new, property)", () => {
  it("reports the full scan's pairs with a fresh member, in the full scan's order, however the order is cut", () => {
    const withFresh = scans.chain((s) => fc.record({ scan: fc.constant(s), fresh: fc.array(fc.boolean(), { minLength: s.order.length, maxLength: s.order.length }).map((f) => Uint8Array.from(f, Number)) }));
    fc.assert(
      fc.property(withFresh, ({ scan: { W, store, order, beam, maxDistance, cuts, labels }, fresh }) => {
        const n = order.length;
        const full: Triple[] = [];
        beamScan(store, W, order, 0, n, beam, maxDistance, (i, j, d) => full.push([i, j, d]), labels);
        const got: Triple[] = [];
        let count = 0;
        for (let c = 0; c + 1 < cuts.length; c++) count += beamScan(store, W, order, cuts[c], cuts[c + 1], beam, maxDistance, (i, j, d) => got.push([i, j, d]), labels, fresh);
        expect(got).toEqual(full.filter(([i, j]) => fresh[i] === 1 || fresh[j] === 1));
        expect(count).toBe(got.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe("beamScan reading the prefixes scattered by position (SortedPrefixes, property)", () => {
  it("reports the triples of the scan that gathers them through the order, in the same order, in WebAssembly and TypeScript, however the order and the store are cut", () => {
    const withFresh = scans.chain((s) =>
      fc.record({
        scan: fc.constant(s),
        fresh: fc.option(fc.array(fc.boolean(), { minLength: s.order.length, maxLength: s.order.length }).map((f) => Uint8Array.from(f, Number)), { nil: undefined }),
        storeCut: fc.integer({ min: 0, max: s.order.length }),
      }),
    );
    fc.assert(
      fc.property(withFresh, ({ scan: { W, store, order, beam, maxDistance, cuts, labels }, fresh, storeCut }) => {
        const n = order.length;
        const P = prefixWords(W, maxDistance);
        const sorted: SortedPrefixes = { prefix: new Uint32Array(n * P), label: labels === undefined ? undefined : new Uint32Array(n), fresh: fresh === undefined ? undefined : new Uint8Array(n) };
        const rank = new Uint32Array(n);
        // Two shares of each pass, as two workers would do them.
        for (const [from, to] of [[0, storeCut], [storeCut, n]]) rankPositions(order, rank, from, to);
        for (const [from, to] of [[storeCut, n], [0, storeCut]]) scatterSorted(store, W, P, rank, from, to, sorted, labels, fresh);
        for (const scan of [beamScan, beamScanTs]) {
          const gathered: Triple[] = [];
          const read: Triple[] = [];
          for (let c = 0; c + 1 < cuts.length; c++) {
            scan(store, W, order, cuts[c], cuts[c + 1], beam, maxDistance, (i, j, d) => gathered.push([i, j, d]), labels, fresh);
            scan(store, W, order, cuts[c], cuts[c + 1], beam, maxDistance, (i, j, d) => read.push([i, j, d]), labels, fresh, sorted);
          }
          expect(read).toEqual(gathered);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("beamScan's WebAssembly prefix filter against the TypeScript loop", () => {
  /** The triples of a scan in the order reported, and the count it returned. */
  function reported(scan: typeof beamScan, store: Uint32Array, W: number, order: Uint32Array, cuts: number[], beam: number, maxDistance: number, labels?: Uint32Array, fresh?: Uint8Array) {
    const got: Triple[] = [];
    let count = 0;
    for (let c = 0; c + 1 < cuts.length; c++) count += scan(store, W, order, cuts[c], cuts[c + 1], beam, maxDistance, (i, j, d) => got.push([i, j, d]), labels, fresh);
    return { got, count };
  }

  it("runs in WebAssembly here", () => {
    expect(beamScanKernelStatus(() => {})).toBe("webassembly");
  });

  it("reports the same triples in the same order (property: stores, orders, cuts, beams from 1 to past n, distances from 0 to past the bits, tie-heavy labels, fresh)", () => {
    const wide = fc.constantFrom(2, 4, 6, 8, 32, 64).chain((W) =>
      fc.record({
        W: fc.constant(W),
        bases: fc.array(fc.array(fc.nat({ max: 0xffffffff }), { minLength: W, maxLength: W }), { minLength: 1, maxLength: 3 }),
        docs: fc.array(fc.record({ base: fc.nat(), flips: fc.array(fc.nat({ max: 32 * W - 1 }), { maxLength: 6 }) }), { minLength: 1, maxLength: 60 }),
      }),
    );
    const cases = wide.chain(({ W, bases, docs }) => {
      const n = docs.length;
      const store = new Uint32Array(n * W);
      docs.forEach(({ base, flips }, i) => {
        store.set(bases[base % bases.length], i * W);
        for (const b of flips) store[i * W + (b >>> 5)] ^= 1 << (b & 31);
      });
      return fc.record({
        W: fc.constant(W),
        store: fc.constant(store),
        order: fc.shuffledSubarray(Array.from({ length: n }, (_, i) => i), { minLength: n, maxLength: n }).map((o) => Uint32Array.from(o)),
        beam: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: n + 3 }), fc.constant(2 ** 31)),
        maxDistance: fc.oneof(fc.constant(0), fc.nat({ max: 12 }), fc.nat({ max: 32 * W }), fc.constant(32 * W + 5)),
        cuts: fc.uniqueArray(fc.integer({ min: 1, max: n }), { maxLength: 4 }).map((c) => [0, ...c.sort((a, b) => a - b).filter((x) => x < n), n]),
        labels: fc.option(fc.array(fc.nat({ max: 2 }), { minLength: n, maxLength: n }).map((l) => Uint32Array.from(l)), { nil: undefined }),
        fresh: fc.option(fc.array(fc.boolean(), { minLength: n, maxLength: n }).map((f) => Uint8Array.from(f, Number)), { nil: undefined }),
      });
    });
    fc.assert(
      fc.property(cases, ({ W, store, order, beam, maxDistance, cuts, labels, fresh }) => {
        const wasm = reported(beamScan, store, W, order, cuts, beam, maxDistance, labels, fresh);
        const ts = reported(beamScanTs, store, W, order, cuts, beam, maxDistance, labels, fresh);
        expect(wasm.got).toEqual(ts.got);
        expect(wasm.count).toBe(ts.count);
        expect(wasm.count).toBe(wasm.got.length);
      }),
      { numRuns: 400 },
    );
  });

  it("resumes after a full output area: every pair a candidate, with and without fresh and labels, prefixes shorter than the signatures", () => {
    const W = 32;
    const n = 300;
    const store = randomStore(n, W, 5);
    const r = new Sfc32(5, 2);
    // Groups of near copies: pairs at small distances beside unrelated ones.
    for (let i = 0; i < n; i++) if (i % 3 !== 0) flipBits(store, W, i, r.nextBelow(60), r);
    const order = Uint32Array.from({ length: n }, (_, k) => (k * 7) % n);
    // Neighbours in the order with identical signatures: a pair at distance 0.
    store.copyWithin(order[11] * W, order[10] * W, order[10] * W + W);
    const labels = Uint32Array.from({ length: n }, (_, i) => i % 5);
    const fresh = Uint8Array.from({ length: n }, (_, i) => (i % 4 === 0 ? 1 : 0));
    expect(prefixWords(W, 40)).toBeLessThan(W);
    for (const maxDistance of [0, 40, 1024, 2000]) {
      for (const [beam, cuts] of [[n, [0, n]], [120, [0, 97, 98, 250, n]], [2 ** 31, [0, 1, n]]] as [number, number[]][]) {
        for (const [l, f] of [[undefined, undefined], [labels, undefined], [undefined, fresh], [labels, fresh]] as [Uint32Array | undefined, Uint8Array | undefined][]) {
          const wasm = reported(beamScan, store, W, order, cuts, beam, maxDistance, l, f);
          const ts = reported(beamScanTs, store, W, order, cuts, beam, maxDistance, l, f);
          expect(wasm.got).toEqual(ts.got);
          expect(wasm.count).toBe(ts.count);
          if (maxDistance >= 1024 && beam >= n && l === undefined && f === undefined) expect(wasm.count).toBe((n * (n - 1)) / 2);
          if (maxDistance === 0 && l === undefined && f === undefined) expect(wasm.got).toContainEqual([order[10], order[11], 0]);
        }
      }
    }
  });
});
