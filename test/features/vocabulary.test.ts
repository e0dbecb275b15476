import { type ShardDf, cutPieces, dfFrames, type DfSource } from "../../src/features/df-pieces.js";
import fc from "fast-check";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { mergeDfPieces, mergeVocabulary, readKeptTerms, readVocabularyHeader, signingIndex, vocabularyIndex, writeShardVocabulary } from "../../src/features/vocabulary.js";
import { shardFile } from "../../src/workdir/layout.js";
import { encodeFrames, encodeRecords, openRunFrames, readRunFileSync } from "../../src/util/run-file.js";
import { removeTempDirs, tempDir } from "../helpers/cli.js";
import { rng } from "../helpers/vert.js";
import { NumberMap } from "../../src/util/number-map.js";

afterAll(removeTempDirs);

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
        // Each table read once, whatever the number of parts.
        expect(reads).toBe(dfs.length);
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

describe("mergeDfPieces over df tables cut into pieces of the hash range", () => {
  const term = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 2 ** 53 - 1 }));
  const corpus = fc.array(fc.array(fc.array(term, { maxLength: 12 }), { maxLength: 6 }), { minLength: 1, maxLength: 5 });

  it("gives the same vocabulary in many parts (small entry limits) as in one, reading each piece once", () => {
    fc.assert(
      fc.property(corpus, fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 5, maxLength: 5 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 40 }), (shards, levels, min, entries) => {
        const tables = shardDfs(shards);
        const docs = shards.reduce((n, s) => n + s.length, 0);
        const pieces = tables.map((t, i) => cutPieces(t, levels[i]));
        const merge = (limit: number) => {
          const reads = new Map<string, number>();
          const source: DfSource = {
            shards: tables.length,
            sizes: (i) => Uint32Array.from(pieces[i], (p) => p.terms.length),
            read: (i, j) => (reads.set(`${i}/${j}`, (reads.get(`${i}/${j}`) ?? 0) + 1), pieces[i][j]),
          };
          const once: number[][] = [];
          const merged = mergeDfPieces(source, docs, { minDf: min, maxDf: Infinity }, (t) => once.push([...t]), limit, 3);
          return { merged: { ...merged, kept: { terms: [...merged.kept.terms], dfs: [...merged.kept.dfs] }, excess: [...merged.excess] }, once, reads };
        };
        const one = merge(Infinity);
        const many = merge(entries);
        expect(many.merged).toEqual(one.merged);
        expect(many.once).toEqual(one.once);
        for (const count of many.reads.values()) expect(count).toBe(1);
        const expected = bruteForce(tables, min, Infinity);
        expect([...one.merged.kept.terms, ...one.once.flat()]).toEqual(expected.terms);
      }),
    );
  });
});

describe("mergeDfPieces over whole tables too large to hold (df files of vertdup 0.4.0)", () => {
  it("reads such a table again for each part and gives the vocabulary of one part", () => {
    const tables: ShardDf[] = [1, 2].map((seed) => {
      const next = rng(seed);
      // Terms in both tables too (df 2), most in one.
      const drawn = Float64Array.from({ length: 150_000 }, (_, k) => (k % 10 === 0 ? k : Math.floor(next() * 2 ** 26) * 2 ** 27 + Math.floor(next() * 2 ** 27)));
      const terms = Float64Array.from(new Set(drawn.sort()));
      return { terms, dfs: new Uint32Array(terms.length).fill(1) };
    });
    let reads = 0;
    const source: DfSource = { shards: 2, sizes: (i) => Uint32Array.of(tables[i].terms.length), read: (i) => (reads++, tables[i]) };
    const chunks = (limit: number) => {
      const once: number[] = [];
      const merged = mergeDfPieces(source, 10, { minDf: 1, maxDf: Infinity }, (t) => t.forEach((x) => once.push(x)), limit);
      return { repeated: [...merged.kept.terms], dfs: [...merged.kept.dfs], once, terms: merged.terms };
    };
    const whole = chunks(Infinity);
    expect(reads).toBe(2);
    reads = 0;
    expect(chunks(40_000)).toEqual(whole);
    // 300,000 entries, 40,000 at a time: 16 parts (2^L ≥ 1.25 × 300,000 / 40,000), each table read for each.
    expect(reads).toBe(32);
    const expected = bruteForce(tables, 1, Infinity);
    expect([...whole.repeated, ...whole.once]).toEqual(expected.terms);
    expect(whole.repeated.length).toBeGreaterThan(10_000);
  });
});

describe("vocab.zst: the df = 1 terms streamed in frames, then the header", () => {
  const parts = shardDfs([[[50, 7, 9], [7, 11, 2 ** 52 + 1]], [[7, 50, 11], [7, 2 ** 52 + 1, 50, 11]], [[7, 11, 12], [7, 11, 13]]]);

  /** A work directory whose shard df files are `parts`, framed (dfFrames) or as one plain record (vertdup 0.4.0). */
  function workdir(framed: boolean): string {
    const dir = tempDir();
    mkdirSync(join(dir, "shards"));
    parts.forEach((df, i) => writeFileSync(shardFile(dir, i, "df"), framed ? encodeFrames(dfFrames(df)) : encodeRecords([df])));
    return dir;
  }

  for (const framed of [true, false]) {
    it(`writes what mergeVocabulary keeps, read back whole or as the header alone (df files ${framed ? "in pieces" : "of 0.4.0"})`, () => {
      for (const [minDf, maxDf] of [[1, Infinity], [1, 4], [2, Infinity]]) {
        const dir = workdir(framed);
        const path = join(dir, "vocab.zst");
        const expected = mergeVocabulary((i) => parts[i], 3, 6, { minDf, maxDf });
        const written = writeShardVocabulary(dir, 3, 6, { minDf, maxDf }, path, 1);
        expect(written.terms).toBe(expected.terms);
        const kept = readKeptTerms(path);
        expect([...kept.terms]).toEqual([...expected.kept.terms]);
        expect([...kept.dfs]).toEqual([...expected.kept.dfs]);
        const header = readVocabularyHeader(path);
        expect(header).toMatchObject({ repeated: expected.repeated, keepsOnce: expected.keepsOnce, once: expected.kept.terms.length - expected.repeated });
        expect([...header.kept.terms]).toEqual([...expected.kept.terms.subarray(0, expected.repeated)]);
        expect([...header.excess]).toEqual([...expected.excess]);
        // One frame per ONCE_CHUNK terms of df = 1 (here at most one), then the header.
        expect(openRunFrames(path).count).toBe(header.once > 0 ? 2 : 1);
      }
    });
  }

  it("reads a vocab.zst of vertdup 0.4.0 (every kept term in one record, then RepeatedTerms)", () => {
    const path = join(tempDir(), "vocab.zst");
    const { kept, repeated, excess, keepsOnce } = mergeVocabulary((i) => parts[i], 3, 6, { minDf: 1, maxDf: 4 });
    writeFileSync(path, encodeRecords([kept, { repeated, excess, keepsOnce }]));
    expect([...readKeptTerms(path).terms]).toEqual([...kept.terms]);
    const header = readVocabularyHeader(path);
    expect([...header.kept.terms]).toEqual([...kept.terms.subarray(0, repeated)]);
    expect(header).toMatchObject({ repeated, keepsOnce, once: kept.terms.length - repeated });
  });

  it("a framed run file reads whole as all its frames' records, in order", () => {
    const path = join(tempDir(), "f.zst");
    writeFileSync(path, encodeFrames([[{ a: 1 }, { a: 2 }], [], [Float64Array.of(3.5)]]));
    const frames = openRunFrames(path);
    expect(frames).toMatchObject({ framed: true, count: 3 });
    expect(frames.read(1)).toEqual([]);
    frames.close();
    expect(readRunFileSync(path)).toEqual([{ a: 1 }, { a: 2 }, Float64Array.of(3.5)]);
  });
});
