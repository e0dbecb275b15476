import { describe, expect, it } from "vitest";
import { allPairsCosine, cosineOf, documentFrequencies, weightVectors, type SparseCounts, type Weighting } from "../../../src/eval/exact/cosine.js";
import { termCounts } from "../../../src/features/terms.js";
import { rng } from "../../helpers/vert.js";

/** Random documents over a small vocabulary of large hash-like term ids, with near-copies. */
function randomDocs(seed: number, n: number, vocab: number): SparseCounts[] {
  const r = rng(seed);
  const ids = Array.from({ length: vocab }, (_, i) => 1_000_003 * (i + 1) + 7 * i * i);
  const docs: SparseCounts[] = [];
  for (let d = 0; d < n; d++) {
    if (d > 0 && r() < 0.3) {
      // A perturbed copy of an earlier document, so that high similarities occur.
      const src = docs[Math.floor(r() * d)];
      const terms = [...src.terms];
      const counts = src.counts.map((c) => (r() < 0.2 ? c + 1 + Math.floor(r() * 3) : c));
      if (r() < 0.5) {
        const t = ids[Math.floor(r() * vocab)];
        if (!terms.includes(t)) {
          terms.push(t);
          counts.push(1);
        }
      }
      docs.push({ terms, counts });
      continue;
    }
    const len = Math.floor(r() * 12); // sometimes empty
    const seen = new Set<number>();
    const terms: number[] = [];
    const counts: number[] = [];
    for (let k = 0; k < len; k++) {
      const t = ids[Math.floor(Math.pow(r(), 2) * vocab)]; // skewed: frequent terms exist
      if (seen.has(t)) continue;
      seen.add(t);
      terms.push(t);
      counts.push(1 + Math.floor(r() * 5));
    }
    docs.push({ terms, counts });
  }
  return docs;
}

/** Naive dense reference: every vector over the whole vocabulary, every pair. */
function naivePairs(docs: SparseCounts[], weighting: Weighting, threshold: number) {
  const vocab = [...new Set(docs.flatMap((d) => [...d.terms]))];
  const col = new Map(vocab.map((t, i) => [t, i]));
  const N = docs.length;
  const df = new Array<number>(vocab.length).fill(0);
  for (const d of docs) for (const t of d.terms) df[col.get(t)!]++;
  const dense = docs.map((d) => {
    const v = new Array<number>(vocab.length).fill(0);
    d.terms.forEach((t, k) => {
      const j = col.get(t)!;
      v[j] = weighting === "tf" ? d.counts[k] : d.counts[k] * Math.log(N / df[j]);
    });
    return v;
  });
  const norm = dense.map((v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0)));
  const all: { a: number; b: number; similarity: number }[] = [];
  for (let a = 0; a < N; a++) {
    for (let b = a + 1; b < N; b++) {
      if (norm[a] === 0 || norm[b] === 0) continue;
      let dot = 0;
      for (let j = 0; j < vocab.length; j++) dot += dense[a][j] * dense[b][j];
      all.push({ a, b, similarity: Math.min(1, dot / (norm[a] * norm[b])) });
    }
  }
  return { pairs: all.filter((p) => p.similarity >= threshold), all };
}

describe("allPairsCosine against a naive dense computation", () => {
  for (const weighting of ["tf", "tfidf"] as const) {
    for (const threshold of [0.3137, 0.7531, 0.9513]) {
      for (const seed of [1, 2, 3]) {
        it(`${weighting}, threshold ${threshold}, seed ${seed}`, () => {
          const docs = randomDocs(seed * 101 + Math.round(threshold * 1000), 120, 40);
          const { pairs: expected, all } = naivePairs(docs, weighting, threshold);
          // The pair sets can be compared exactly only if no similarity sits on the threshold
          // within rounding. Integer counts give rational cosines such as 0.3 or 0.75, so
          // the thresholds are chosen off such values, and this guard proves it.
          const nearEdge = all.filter((p) => Math.abs(p.similarity - threshold) < 1e-9 && p.similarity !== 1);
          expect(nearEdge).toEqual([]);
          const got = allPairsCosine(docs, { threshold, weighting });
          expect(got.map((p) => [p.a, p.b])).toEqual(expected.map((p) => [p.a, p.b]));
          for (let i = 0; i < got.length; i++) {
            expect(Math.abs(got[i].similarity - expected[i].similarity)).toBeLessThanOrEqual(1e-12);
          }
          expect(expected.length).toBeGreaterThan(0);
        });
      }
    }
  }
});

describe("hand-computed example", () => {
  // Terms: 1 = "a", 2 = "b", 3 = "c".
  const docs: SparseCounts[] = [
    { terms: [1, 2], counts: [1, 1] }, // (1,1,0)
    { terms: [1, 3], counts: [1, 1] }, // (1,0,1)
    { terms: [2, 1], counts: [2, 2] }, // (2,2,0): same direction as doc 0
    { terms: [3], counts: [3] }, //       (0,0,3)
    { terms: [], counts: [] }, //         empty: never paired
  ];

  it("tf: cos = dot / (|a| |b|)", () => {
    const got = allPairsCosine(docs, { threshold: 0.01 });
    // 0–1: 1/(√2·√2) = 1/2; 0–2: 4/(√2·√8) = 1; 1–2: 2/(√2·√8) = 1/2; 1–3: 3/(√2·3) = 1/√2.
    expect(got.map((p) => [p.a, p.b])).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
      [1, 3],
    ]);
    const sims = got.map((p) => p.similarity);
    expect(sims[0]).toBeCloseTo(0.5, 14);
    expect(sims[1]).toBeCloseTo(1, 14);
    expect(sims[1]).toBeLessThanOrEqual(1);
    expect(sims[2]).toBeCloseTo(0.5, 14);
    expect(sims[3]).toBeCloseTo(Math.SQRT1_2, 14);
    expect(allPairsCosine(docs, { threshold: 0.6 }).map((p) => [p.a, p.b])).toEqual([
      [0, 2],
      [1, 3],
    ]);
  });

  it("tfidf: w = tf · ln(N/df)", () => {
    // N = 5; df(a) = 3, df(b) = 2, df(c) = 2.
    expect(documentFrequencies(docs)).toEqual(new Map([[1, 3], [2, 2], [3, 2]]));
    const ia = Math.log(5 / 3);
    const ib = Math.log(5 / 2);
    const ic = Math.log(5 / 2);
    // doc0 = (ia, ib, 0), doc1 = (ia, 0, ic): cos = ia² / (ia² + ib²) since ib = ic.
    const expected01 = (ia * ia) / (ia * ia + ib * ib);
    const got = allPairsCosine(docs, { threshold: 0.01, weighting: "tfidf" });
    const p01 = got.find((p) => p.a === 0 && p.b === 1)!;
    expect(p01.similarity).toBeCloseTo(expected01, 14);
    // doc1–doc3: ic·3ic / (√(ia²+ic²) · 3ic) = ic / √(ia²+ic²).
    const p13 = got.find((p) => p.a === 1 && p.b === 3)!;
    expect(p13.similarity).toBeCloseTo(ic / Math.sqrt(ia * ia + ic * ic), 14);
  });

  it("a term in every document has idf 0 and an all-zero vector is never paired", () => {
    const d: SparseCounts[] = [
      { terms: [9], counts: [4] },
      { terms: [9, 5], counts: [1, 2] },
      { terms: [9, 5], counts: [7, 1] },
    ];
    const { vectors } = weightVectors(d, "tfidf");
    expect(vectors[0].norm).toBe(0);
    expect(vectors[0].index.length).toBe(0);
    const got = allPairsCosine(d, { threshold: 0.01, weighting: "tfidf" });
    expect(got.map((p) => [p.a, p.b, p.similarity])).toEqual([[1, 2, 1]]);
    expect(cosineOf(vectors[0], vectors[1])).toBe(0);
  });

  it("rejects thresholds outside (0, 1] and mismatched arrays", () => {
    expect(() => allPairsCosine(docs, { threshold: 0 })).toThrow(RangeError);
    expect(() => allPairsCosine(docs, { threshold: 1.5 })).toThrow(RangeError);
    expect(() => allPairsCosine([{ terms: [1], counts: [] }], { threshold: 0.5 })).toThrow(RangeError);
  });

  it("works on termCounts output", () => {
    const o = { normalize: "nfc" as const, lowercase: true, keepNumbers: false, shingleSize: 1 };
    const a = termCounts(["The", "cat", "sat", "on", "the", "mat", "."], o);
    const b = termCounts(["the", "cat", "sat", "on", "the", "mat", "1999"], o);
    const c = termCounts(["a", "dog"], o);
    const got = allPairsCosine([a, b, c], { threshold: 0.5 });
    expect(got.map((p) => [p.a, p.b])).toEqual([[0, 1]]);
    expect(got[0].similarity).toBeCloseTo(1, 14);
  });
});
