import { describe, expect, it } from "vitest";
import { Sfc32, termVector, VectorCache } from "../../src/sketch/random-vectors.js";
import { accumulate, signBits, wordsPerSignature } from "../../src/sketch/signature.js";
import { hammingDistance } from "../../src/pleb/hamming.js";

/**
 * The `bits`-bit signature of Σ weights[i]·e_{terms[i]}, summed in the given order. Vectors
 * come from `cache` when it holds them (identical values), otherwise from termVector — the
 * sign pass (src/sketch/sign-shard.ts) per document, as a reference built from the same parts.
 */
function signature(
  seed: number,
  terms: readonly number[],
  weights: readonly number[],
  bits: number,
  cache?: VectorCache,
): Uint32Array {
  const words = wordsPerSignature(bits);
  if (terms.length !== weights.length) {
    throw new RangeError(`${terms.length} terms but ${weights.length} weights`);
  }
  if (cache !== undefined && (cache.seed !== seed || cache.bits !== bits)) {
    throw new RangeError(
      `vector cache is for seed ${cache.seed}, ${cache.bits} bits; asked for seed ${seed}, ${bits} bits`,
    );
  }
  const acc = new Float64Array(bits);
  const scratch = new Float32Array(bits);
  for (let i = 0; i < terms.length; i++) {
    let vector = cache?.get(terms[i]) ?? null;
    if (vector === null) {
      termVector(seed, terms[i], scratch);
      vector = scratch;
    }
    accumulate(acc, vector, weights[i]);
  }
  const out = new Uint32Array(words);
  signBits(acc, out, 0);
  return out;
}

/** Standard normal from a seeded stream (Box–Muller; test data only). */
function gaussian(r: Sfc32): number {
  const u = (r.nextUint32() + 1) / 0x1_0000_0001;
  const v = r.nextUint32() / 0x1_0000_0000;
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function dot(a: number[], b: number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Unit u and unit w ⊥ u in R^dim (Gram–Schmidt on two Gaussian vectors). */
function orthonormalPair(r: Sfc32, dim: number): [number[], number[]] {
  const u = Array.from({ length: dim }, () => gaussian(r));
  const nu = Math.sqrt(dot(u, u));
  for (let i = 0; i < dim; i++) u[i] /= nu;
  const w = Array.from({ length: dim }, () => gaussian(r));
  const p = dot(u, w);
  for (let i = 0; i < dim; i++) w[i] -= p * u[i];
  const nw = Math.sqrt(dot(w, w));
  for (let i = 0; i < dim; i++) w[i] /= nw;
  return [u, w];
}

describe("accumulate / signBits", () => {
  it("sums weighted vectors and takes signs in the documented bit order", () => {
    const acc = new Float64Array(64);
    const v = new Float32Array(64);
    for (let j = 0; j < 64; j++) v[j] = j % 3 === 0 ? 1 : -1;
    accumulate(acc, v, 2);
    accumulate(acc, v, -0.5);
    expect(acc[0]).toBe(1.5);
    expect(acc[1]).toBe(-1.5);
    acc[5] = 0; // zero gives 0
    const out = new Uint32Array(4).fill(0xffffffff);
    signBits(acc, out, 1);
    expect(out[0]).toBe(0xffffffff); // untouched before the offset
    expect(out[3]).toBe(0xffffffff); // nor after the 2 words
    for (let j = 0; j < 64; j++) {
      const bit = (out[1 + (j >>> 5)] >>> (j & 31)) & 1;
      expect(bit).toBe(j % 3 === 0 ? 1 : 0);
    }
  });
});

describe("signature", () => {
  it("equals the sign of the summed term vectors and agrees with a cache", () => {
    const terms = [9, 2 ** 40 + 1, 12, 77777];
    const weights = [0.5, 1.25, -0.75, 2];
    const sig = signature(3, terms, weights, 128);
    const acc = new Float64Array(128);
    const v = new Float32Array(128);
    terms.forEach((t, i) => {
      termVector(3, t, v);
      for (let j = 0; j < 128; j++) acc[j] += weights[i] * v[j];
    });
    for (let j = 0; j < 128; j++) expect((sig[j >>> 5] >>> (j & 31)) & 1).toBe(acc[j] > 0 ? 1 : 0);

    const cache = VectorCache.build("float32", 3, 128, [12, 9]);
    cache.fill();
    expect(signature(3, terms, weights, 128, cache)).toEqual(sig);
    // A partly filled cache (some terms fall back to termVector) gives the same bits.
    const partial = VectorCache.build("float32", 3, 128, [12, 9]);
    partial.fill(0, 1);
    expect(signature(3, terms, weights, 128, partial)).toEqual(sig);
    expect(() => signature(4, terms, weights, 128, cache)).toThrow(RangeError);
    expect(() => signature(3, terms, weights.slice(1), 128)).toThrow(RangeError);
    expect(() => wordsPerSignature(96)).toThrow(RangeError);
    expect(signature(3, [], [], 64)).toEqual(new Uint32Array(2));
  });

  it("is scale invariant (positive weights scale) and flips under negation", () => {
    const terms = [1, 2, 3, 4, 5];
    const w = [0.3, -1.1, 0.7, 2.2, -0.4];
    const sig = signature(8, terms, w, 256);
    expect(signature(8, terms, w.map((x) => x * 3.5), 256)).toEqual(sig);
    const neg = signature(8, terms, w.map((x) => -x), 256);
    expect(hammingDistance(Uint32Array.from([...sig, ...neg]), 0, 1, 8)).toBe(256);
  });

  it("has relative Hamming similarity ≈ 1 − θ/π (Charikar's LSH property)", () => {
    // For Gaussian hyperplanes, each bit differs independently with probability p = θ/π,
    // exactly, in any dimension ≥ 2 (the Gaussian is rotation invariant). With k = 1024 bits
    // and m = 8 pairs, each with its own seed (independent hyperplanes), the mean relative
    // distance has σ = √(p(1−p)/(k·m)) ≤ 0.5/√8192 ≈ 0.0055. Tolerance 5σ(p): a false
    // failure has probability < 1e-6 per angle (and the seeds are fixed).
    const bits = 1024;
    const dim = 48;
    const m = 8;
    const terms = Array.from({ length: dim }, (_, i) => 1000 + i * 31);
    const r = new Sfc32(2024, 1);
    for (const theta of [Math.PI / 16, Math.PI / 6, Math.PI / 3, Math.PI / 2, (3 * Math.PI) / 4]) {
      let sum = 0;
      for (let k = 0; k < m; k++) {
        const [u, w] = orthonormalPair(r, dim);
        const v2 = u.map((x, i) => Math.cos(theta) * x + Math.sin(theta) * w[i]);
        const seed = 100 + k;
        const s = Uint32Array.from([
          ...signature(seed, terms, u, bits),
          ...signature(seed, terms, v2, bits),
        ]);
        sum += hammingDistance(s, 0, 1, bits / 32) / bits;
      }
      const p = theta / Math.PI;
      const sigma = Math.sqrt((p * (1 - p)) / (bits * m));
      expect(Math.abs(1 - sum / m - (1 - p))).toBeLessThan(5 * sigma);
    }
  });
});
