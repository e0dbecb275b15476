import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ShardDf } from "../../src/features/count-shard.js";
import { mergeVocabulary, signingIndex, vocabularyIndex } from "../../src/features/vocabulary.js";
import { NumberMap } from "../../src/util/number-map.js";

/** Shard df tables (sorted by term) of documents given as term lists. */
function shardDfs(shards: number[][][]): ShardDf[] {
  return shards.map((docs) => {
    const df = new Map<number, number>();
    for (const doc of docs) for (const t of new Set(doc)) df.set(t, (df.get(t) ?? 0) + 1);
    const terms = [...df.keys()].sort((a, b) => a - b);
    return { terms: Float64Array.from(terms), dfs: Uint32Array.from(terms.map((t) => df.get(t) as number)) };
  });
}

/** The kept terms by brute force: a table of every term, one comparison sort. */
function bruteForce(parts: ShardDf[], min: number, max: number): { terms: number[]; dfs: number[]; distinct: number } {
  const df = new Map<number, number>();
  for (const p of parts) p.terms.forEach((t, k) => df.set(t, (df.get(t) ?? 0) + p.dfs[k]));
  const kept = [...df].filter(([, n]) => n >= min && n <= max).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return { terms: kept.map(([t]) => t), dfs: kept.map(([, n]) => n), distinct: df.size };
}

describe("mergeVocabulary", () => {
  const parts = shardDfs([[[50, 7, 9], [7, 11, 2 ** 52 + 1]], [[7, 50, 11], [7, 2 ** 52 + 1, 50, 11]], [[7, 11, 12], [7, 11, 13]]]);

  it("orders the kept terms by decreasing df, then hash, within the df limits", () => {
    const merged = mergeVocabulary((i) => parts[i], 3, 6, { minDf: 2, maxDf: Infinity });
    expect([...merged.kept.terms]).toEqual([7, 11, 50, 2 ** 52 + 1]);
    expect([...merged.kept.dfs]).toEqual([6, 5, 3, 2]);
    expect(merged.terms).toBe(7);
    expect(merged).toMatchObject({ repeated: 4, keepsOnce: false });
  });

  it("puts the kept terms of df 1 last in hash order and lists the repeated terms above --max-df", () => {
    const merged = mergeVocabulary((i) => parts[i], 3, 6, { minDf: 1, maxDf: 4 });
    expect([...merged.kept.terms]).toEqual([50, 2 ** 52 + 1, 9, 12, 13]);
    expect([...merged.excess]).toEqual([7, 11]);
    expect(merged).toMatchObject({ repeated: 2, keepsOnce: true });
  });

  it("equals the brute-force vocabulary whatever the memory bound (parts of the hash range) and the pieces sorted at once", () => {
    const term = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 2 ** 53 - 1 }));
    fc.assert(
      fc.property(fc.array(fc.array(fc.array(term, { maxLength: 12 }), { maxLength: 6 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 80 }), (shards, min, entries, sortEntries) => {
        const dfs = shardDfs(shards);
        const docs = shards.reduce((n, s) => n + s.length, 0);
        const expected = bruteForce(dfs, min, Math.max(min, docs - 1));
        let reads = 0;
        const merged = mergeVocabulary((i) => (reads++, dfs[i]), dfs.length, docs, { minDf: min, maxDf: Math.max(min, docs - 1) }, entries, sortEntries);
        expect([...merged.kept.terms]).toEqual(expected.terms);
        expect([...merged.kept.dfs]).toEqual(expected.dfs);
        expect(merged.terms).toBe(expected.distinct);
        expect(merged.repeated).toBe(expected.dfs.filter((n) => n >= 2).length);
        const total = dfs.reduce((n, p) => n + p.terms.length, 0);
        if (total > entries) expect(reads).toBeGreaterThan(dfs.length);
      }),
    );
  });
});

describe("vocabularyIndex and signingIndex", () => {
  const parts = shardDfs([[[50, 7, 9], [7, 11, 2 ** 52 + 1]], [[7, 50, 11], [7, 2 ** 52 + 1, 50, 11]], [[7, 11, 12], [7, 11, 13]]]);

  it("gives each kept term its rank and its idf (or 1), in shared memory", () => {
    const { kept } = mergeVocabulary((i) => parts[i], 3, 6, { minDf: 1, maxDf: Infinity });
    const idf = vocabularyIndex(kept, 6, "tfidf");
    const tf = vocabularyIndex(kept, 6, "tf");
    expect(idf.factors.buffer).toBeInstanceOf(SharedArrayBuffer);
    for (let k = 0; k < kept.terms.length; k++) {
      expect(idf.ranks.get(kept.terms[k])).toBe(k);
      expect(idf.factors[k]).toBe(Math.log(6 / kept.dfs[k]));
      expect(tf.factors[k]).toBe(1);
    }
    expect(idf.factors[0]).toBe(0); // in every document
    expect(idf.ranks.get(12345)).toBeUndefined();
    const other = NumberMap.fromShared(structuredClone(idf.ranks.toShared()));
    expect(other.get(50)).toBe(idf.ranks.get(50));
  });

  it("signingIndex gives every term of the corpus vocabularyIndex's rank and factor, with no entry for df = 1", () => {
    const corpus = [7, 9, 11, 12, 13, 50, 2 ** 52 + 1];
    for (const [minDf, maxDf] of [[1, Infinity], [1, 4], [2, Infinity], [2, 4], [0.5, 0.7]]) {
      for (const weighting of ["tf", "tfidf"] as const) {
        const merged = mergeVocabulary((i) => parts[i], 3, 6, { minDf, maxDf });
        const full = vocabularyIndex(merged.kept, 6, weighting);
        const signing = signingIndex(merged.kept, merged, 6, weighting);
        for (const term of corpus) {
          const rank = full.ranks.get(term);
          const factor = rank === undefined ? 0 : full.factors[rank];
          const signed = signing.ranks.get(term);
          expect(signed === undefined ? signing.onceFactor : signing.factors[signed]).toBe(factor);
          if (signed !== undefined && signing.factors[signed] !== 0) expect(signed).toBe(rank);
        }
        expect(signing.ranks.size).toBe(merged.repeated + merged.excess.length);
      }
    }
  });
});
