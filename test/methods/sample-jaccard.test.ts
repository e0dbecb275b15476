import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sortedJaccard, sortedSet } from "../../src/methods/sets/jaccard.js";
import { bandsForRecall, candidateProbability } from "../../src/methods/sets/lsh-bands.js";
import { sampleIndex, sampleJaccards, sampleSets, type SetSource } from "../../src/methods/sets/sample-jaccard.js";
import { concatF64, concatU32 } from "../../src/util/typed-arrays.js";

/** Shards of documents given as element lists (repeats and any order allowed), as the workers read them. */
function sources(docs: number[][], cuts: number[]): SetSource[] {
  const bounds = [0, ...new Set(cuts.map((c) => c % (docs.length + 1)))].sort((x, y) => x - y).filter((c, k, all) => k === 0 || c !== all[k - 1]);
  bounds.push(docs.length);
  const out: SetSource[] = [];
  for (let s = 0; s + 1 < bounds.length; s++) {
    const part = docs.slice(bounds[s], bounds[s + 1]);
    if (part.length === 0) continue;
    out.push({ firstDoc: bounds[s], sets: { lengths: Uint32Array.from(part, (d) => d.length), values: Float64Array.from(part.flat()) } });
  }
  return out;
}

/** The worker tasks run in this thread: pick the sample, index it, score every shard. */
function reference(docs: number[][], cuts: number[], sampled: Uint8Array, threshold: number): string[] {
  const shards = sources(docs, cuts);
  const parts = shards.map((source) => sampleSets({ source, sampled }));
  const index = sampleIndex(concatU32(parts.map((p) => p.ordinals)), concatU32(parts.map((p) => p.lengths)), concatF64(parts.map((p) => p.values)));
  const out: string[] = [];
  for (const source of shards) {
    const p = sampleJaccards({ source, sampled, index, threshold });
    for (let k = 0; k < p.a.length; k++) out.push(`${p.a[k]}:${p.b[k]}=${p.similarity[k]}`);
  }
  return out;
}

/** Every pair with a sampled document, brute force over all pairs. */
function brute(docs: number[][], sampled: Uint8Array, threshold: number): string[] {
  const sets = docs.map((d) => sortedSet(d));
  const out: string[] = [];
  for (let a = 0; a < docs.length; a++) {
    for (let b = a + 1; b < docs.length; b++) {
      if (!sampled[a] && !sampled[b]) continue;
      const j = sortedJaccard(sets[a], 0, sets[a].length, sets[b], 0, sets[b].length);
      if (j >= threshold) out.push(`${a}:${b}=${j}`);
    }
  }
  return out;
}

describe("exact Jaccard of a sample against the corpus", () => {
  it("gives every pair with a sampled document at Jaccard ≥ threshold exactly once, as brute force does, whatever the shards", () => {
    // Elements far apart in the high bits, the low 32 bits colliding: the table compares whole values.
    const element = fc.integer({ min: 0, max: 24 }).map((k) => (k % 5) * 2 ** 40 + Math.floor(k / 5));
    fc.assert(
      fc.property(
        fc.array(fc.array(element, { maxLength: 12 }), { minLength: 1, maxLength: 25 }),
        fc.array(fc.boolean(), { maxLength: 25 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.constantFrom(0.1, 0.3, 0.5, 0.7, 0.75, 1),
        (docs, flags, cuts, threshold) => {
          const sampled = Uint8Array.from(docs, (_, d) => (flags[d] ? 1 : 0));
          expect(reference(docs, cuts, sampled, threshold).sort()).toEqual(brute(docs, sampled, threshold).sort());
        },
      ),
      { numRuns: 300 },
    );
  });

  it("counts a pair at exactly the threshold (0.28 = 7/25, where 0.28 · 25 rounds above 7)", () => {
    const a = Array.from({ length: 25 }, (_, k) => k);
    const docs = [a, a.slice(0, 7), [...a.slice(0, 6), 100]];
    expect(reference(docs, [], Uint8Array.of(1, 0, 0), 0.28)).toEqual(["0:1=0.28"]);
  });
});

describe("bands × rows for a target recall", () => {
  it("reaches the target at the threshold, within --num-perm, and no split with more rows does", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 256 }), fc.double({ min: 0.3, max: 0.95, noNaN: true }), fc.double({ min: 0.5, max: 0.999, noNaN: true }), (numPerm, threshold, target) => {
        const found = bandsForRecall(threshold, numPerm, target);
        const reaches = (rows: number) => candidateProbability(threshold, Math.floor(numPerm / rows), rows) >= target;
        const from = found === undefined ? 1 : found.rows + 1;
        for (let rows = from; rows <= numPerm; rows++) expect(reaches(rows)).toBe(false);
        if (found === undefined) return;
        expect(found.probability).toBeGreaterThanOrEqual(target);
        expect(found.probability).toBe(candidateProbability(threshold, found.bands, found.rows));
        expect(found.bands * found.rows).toBeLessThanOrEqual(numPerm);
        expect((found.bands + 1) * found.rows).toBeGreaterThan(numPerm);
      }),
    );
  });

  it("recommends 128 permutations at Jaccard 0.8 for recall 0.99", () => {
    const found = bandsForRecall(0.8, 128, 0.99);
    // 6 rows: 21 bands, 1 − (1 − 0.8^6)^21 ≈ 0.9983; 7 rows: 18 bands, ≈ 0.9866 < 0.99.
    expect(found).toMatchObject({ bands: 21, rows: 6 });
    expect(candidateProbability(0.8, 18, 7)).toBeLessThan(0.99);
  });
});
