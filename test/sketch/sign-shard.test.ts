import { afterAll, describe, expect, it } from "vitest";
import type { ShardCounts } from "../../src/features/count-shard.js";
import { readRunFileSync, writeRunFile } from "../../src/util/run-file.js";
import type { SigRecord } from "../../src/sketch/signature-record.js";
import { createWorkdir, shardFile } from "../../src/workdir/layout.js";
import { termVector, VectorCache } from "../../src/sketch/random-vectors.js";
import type { Projection } from "../../src/core/options.js";
import { signShard } from "../../src/sketch/sign-shard.js";
import { SigningTerms } from "../../src/sketch/signing-terms.js";
import { accumulate, factorScale, FIXED_POINT_BITS, INT32_WEIGHT_LIMIT, signBits } from "../../src/sketch/signature.js";
import { NumberMap } from "../../src/util/number-map.js";
import { removeTempDirs, tempDir } from "../helpers/cli.js";

afterAll(removeTempDirs);

const BITS = 1024;
const SEED = 3;

/** The float64 reference signature of `projection` vectors with weights `weights` (tf: the counts). */
function reference(terms: number[], weights: number[], projection: Projection = "int8"): Uint32Array {
  const acc = new Float64Array(BITS);
  const v = projection === "int8" ? new Int8Array(BITS) : new Float32Array(BITS);
  terms.forEach((t, i) => {
    termVector(SEED, t, v);
    accumulate(acc, v, weights[i]);
  });
  const out = new Uint32Array(BITS / 32);
  signBits(acc, out, 0);
  return out;
}

interface Doc {
  terms: number[];
  counts: number[];
}

/** Signs `docs` as shard 0 of a new work directory: the vectors of `cached` terms cached, the others computed afresh. */
async function signDocs(docs: Doc[], factorsOf: Map<number, number>, cached: number[], projection: Projection, scale: number, typescript = false): Promise<Uint32Array[]> {
  const workdir = tempDir();
  await createWorkdir(workdir);
  const counts: ShardCounts = {
    ordinals: Uint32Array.from(docs.map((_, d) => d)),
    lengths: Uint32Array.from(docs.map((d) => d.terms.length)),
    terms: Float64Array.from(docs.flatMap((d) => d.terms)),
    counts: Uint32Array.from(docs.flatMap((d) => d.counts)),
  };
  await writeRunFile(shardFile(workdir, 0, "counts"), [counts]);
  const terms = [...cached, ...[...factorsOf.keys()].filter((t) => !cached.includes(t))];
  const ranks = new NumberMap(terms.length, true);
  const factors = new Float64Array(new SharedArrayBuffer(8 * terms.length));
  terms.forEach((t, k) => {
    ranks.set(t, k);
    factors[k] = factorsOf.get(t)!;
  });
  const cache = VectorCache.build(projection, SEED, BITS, cached, 1);
  cache.fill();
  // typescript: the same memory without its WebAssembly object, so no kernels.
  const parts = cache.toShared();
  const shared = typescript ? { ...parts, memory: { ...parts.memory, memory: null } } : parts;
  const stats = await signShard({ workdir, index: 0, bits: BITS, seed: SEED, terms: SigningTerms.build(ranks, factors, 0, scale, cache).toShared(), cache: shared });
  expect(stats.signed).toBe(docs.length);
  const out: Uint32Array[] = [];
  for (const r of readRunFileSync<SigRecord>(shardFile(workdir, 0, "run"))) out[r.d] = Uint32Array.from(r.s);
  return out;
}

describe("signShard, int8 and tf", () => {
  it("sums in int32 only while they cannot overflow: a document of huge counts gets its float64 bits", async () => {
    const workdir = tempDir();
    await createWorkdir(workdir);
    const [a, b] = [101, 202];
    // Document 0: Σ counts over the limit (int32 sums would wrap); document 1: small counts.
    const docs = [
      { terms: [a, b], counts: [2 ** 26, 1] },
      { terms: [b, a], counts: [3, 5] },
    ];
    const counts: ShardCounts = {
      ordinals: Uint32Array.from([0, 1]),
      lengths: Uint32Array.from(docs.map((d) => d.terms.length)),
      terms: Float64Array.from(docs.flatMap((d) => d.terms)),
      counts: Uint32Array.from(docs.flatMap((d) => d.counts)),
    };
    expect(2 ** 26 + 1).toBeGreaterThan(INT32_WEIGHT_LIMIT);
    // tf weighs by the counts alone, as before the fixed point of tf-idf: the same bits.
    expect(factorScale("int8", "tf")).toBe(1);
    await writeRunFile(shardFile(workdir, 0, "counts"), [counts]);
    const ranks = new NumberMap(2, true);
    ranks.set(a, 0);
    ranks.set(b, 1);
    const factors = new Float64Array(new SharedArrayBuffer(16)).fill(1);
    // a is cached, b is computed afresh.
    const cache = VectorCache.build("int8", SEED, BITS, [a], 1);
    cache.fill();
    const stats = await signShard({ workdir, index: 0, bits: BITS, seed: SEED, terms: SigningTerms.build(ranks, factors, 0, factorScale("int8", "tf"), cache).toShared(), cache: cache.toShared() });
    expect(stats.signed).toBe(2);
    const records = readRunFileSync<SigRecord>(shardFile(workdir, 0, "run"));
    for (const r of records) expect(Uint32Array.from(r.s)).toEqual(reference(docs[r.d].terms, docs[r.d].counts));
  });
});

describe("signShard, tf-idf", () => {
  // Factors like idf of a 100,000-document corpus; c's and e's round half up in fixed point
  // (·256 = 600.5, 1.5), and d's and e's so coarsely that their document's bits change; f's
  // (a term in nearly every document) would round to 0: it keeps the smallest weight, 1.
  const [a, b, c, d, e, f] = [101, 202, 303, 404, 505, 606];
  const idf = new Map([
    [a, Math.log(100_000 / 37)],
    [b, 0.35],
    [c, 600.5 / 256],
    [d, 2.3 / 256],
    [e, 1.5 / 256],
    [f, 0.3 / 256],
  ]);
  const docs: Doc[] = [
    { terms: [a, b, c], counts: [1, 4, 2] },
    { terms: [c, a], counts: [9, 1] },
    { terms: [d, e], counts: [1, 1] },
    // Σ count·round(idf·256) beyond INT32_WEIGHT_LIMIT: float64 sums of the same integers.
    { terms: [b, c, a], counts: [2 ** 16, 2 ** 15, 3] },
    // Only near-ubiquitous terms, as a boilerplate page that is most of the corpus: still signed.
    { terms: [f], counts: [3] },
  ];

  it("with int8 vectors weighs in fixed point, count·max(1, round(idf·2^8)), and sums exactly: the bits of the float64 sums of those integers, in int32 or beyond it", async () => {
    expect(factorScale("int8", "tfidf")).toBe(2 ** FIXED_POINT_BITS);
    expect(FIXED_POINT_BITS).toBe(8);
    const fixed = (d: Doc) => d.terms.map((t, i) => d.counts[i] * Math.max(1, Math.round(idf.get(t)! * 256)));
    expect(fixed(docs[0])).toEqual([2023, 4 * 90, 2 * 601]);
    expect(fixed(docs[4])).toEqual([3]);
    expect(fixed(docs[2])).toEqual([2, 2]);
    const real = (d: Doc) => d.terms.map((t, i) => d.counts[i] * idf.get(t)!);
    expect(reference(docs[2].terms, fixed(docs[2]))).not.toEqual(reference(docs[2].terms, real(docs[2])));
    expect(fixed(docs[3]).reduce((x, y) => x + y)).toBeGreaterThan(INT32_WEIGHT_LIMIT);
    const signed = await signDocs(docs, idf, [a, c, e], "int8", factorScale("int8", "tfidf"));
    docs.forEach((d, k) => expect(signed[k]).toEqual(reference(d.terms, fixed(d))));
  });

  it("signs in blocks (WebAssembly) with the bits of document by document (TypeScript): many documents, cached and uncached terms, counts beyond int16 weights", async () => {
    const terms = Array.from({ length: 400 }, (_, k) => 1000 + k * 7919);
    const idfOf = new Map(terms.map((t, k) => [t, Math.log(100_000 / (k + 2))]));
    // Documents of 1–300 terms (a term's count up to 40: weights beyond int16 for frequent counts).
    const many: Doc[] = Array.from({ length: 300 }, (_, d) => {
      const length = 1 + ((d * 37) % 300);
      const own = Array.from({ length }, (_, i) => terms[(d * 13 + i * 7) % terms.length]);
      const distinct = [...new Set(own)];
      return { terms: distinct, counts: distinct.map((_, i) => 1 + ((d + i * 11) % 40)) };
    });
    const cached = terms.slice(0, 300);
    const scale = factorScale("int8", "tfidf");
    const wasm = await signDocs(many, idfOf, cached, "int8", scale);
    const ts = await signDocs(many, idfOf, cached, "int8", scale, true);
    expect(wasm).toEqual(ts);
    const fixed = (d: Doc) => d.terms.map((t, i) => d.counts[i] * Math.max(1, Math.round(idfOf.get(t)! * 256)));
    for (const k of [0, 1, 150, 299]) expect(wasm[k]).toEqual(reference(many[k].terms, fixed(many[k])));
  });

  it("with float32 vectors keeps the real weights count·idf and float64 sums in term order (the thesis's method)", async () => {
    expect(factorScale("float32", "tfidf")).toBe(0);
    expect(factorScale("float32", "tf")).toBe(0);
    const signed = await signDocs(docs, idf, [a, c, e], "float32", factorScale("float32", "tfidf"));
    docs.forEach((d, k) => expect(signed[k]).toEqual(reference(d.terms, d.terms.map((t, i) => d.counts[i] * idf.get(t)!), "float32")));
  });
});

