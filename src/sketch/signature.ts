/**
 * Charikar's random-hyperplane signature of a weighted bag of terms.
 *
 * For a document vector v (term weights, e.g. tf-idf) and random normals RND_0 … RND_{k−1},
 * bit j is 1 iff v·RND_j > 0. For two vectors at angle θ a random hyperplane separates them
 * with probability θ/π, so the relative Hamming similarity of two k-bit signatures is an
 * unbiased estimate of 1 − θ/π with standard deviation √(p(1−p)/k), p = θ/π.
 *
 * v·RND_j = Σ_t w_t·g(seed,t,j) is accumulated term by term over the float32 or int8 term
 * vectors of random-vectors.ts.
 *
 * float32 vectors (the thesis's method): real weights count·factor, float64 sums. Floating-point
 * addition is not associative, so the term order is part of the result: callers pass terms in
 * first-occurrence order, and every thread computes the same bits.
 *
 * int8 vectors: integer weights, so the projections are exact integer sums, the same in any
 * order and in TypeScript and WebAssembly by construction. tf weights are the counts; tf-idf
 * weights are in fixed point, count·round(idf·2^FIXED_POINT_BITS), at least count for idf > 0
 * (`factorScale`, `fixedPointFactor`): the
 * rounding is one per term of the vocabulary, whatever the documents, workers and shards,
 * and scales every weight of a document alike up to a relative error of 2^-9/idf. The sums
 * are int32 (`accumulateInt32`) while Σ|w|·127 < 2^31 (INT32_WEIGHT_LIMIT), else float64
 * sums of the same integers, exact below 2^53, so the bits do not depend on the path.
 */

import type { PrepareOptions, Projection } from "../core/options.js";
import type { TermVector } from "./sign-memory.js";

/** The largest sum of integer weights of one document whose int8 projections fit in int32. */
export const INT32_WEIGHT_LIMIT = Math.floor(0x7fff_ffff / 127);

/** The largest sum of integer weights whose int8 projections float64 sums hold exactly (|sum| < 2^53). */
export const EXACT_WEIGHT_LIMIT = Math.floor(2 ** 53 / 127);

/**
 * Fractional bits of the fixed-point tf-idf factors of int8 vectors. 8 bits: the signatures
 * differ from those of the float64 weights in fewer bits than float32 and int8 vectors differ
 * (docs/PERFORMANCE.md "Target 1 again"), and the weights of counts up to 9 (idf ≤ 14, a vocabulary of a million
 * documents) still fit the int16 kernel.
 */
export const FIXED_POINT_BITS = 8;

/**
 * The sign pass's weights of `projection` and `weighting`: with int8 vectors, integers
 * count·round(factor·scale), scale 1 for tf (the factors are 1) and 2^FIXED_POINT_BITS for
 * tf-idf; 0 for float32 vectors, whose weights are count·factor, summed in float64.
 */
export function factorScale(projection: Projection, weighting: PrepareOptions["weighting"]): number {
  if (projection !== "int8") return 0;
  return weighting === "tf" ? 1 : 2 ** FIXED_POINT_BITS;
}

/**
 * The integer weight factor of a real `factor` at `scale` (factorScale > 0): round(factor·scale),
 * but at least 1 for a positive factor. Rounded to 0, a term in all but 1/512 of the documents
 * (idf < 2^-9) would drop out, and a document made only of such terms — a boilerplate page that
 * is most of the corpus — would get no signature, as it does with float weights only when every
 * idf is exactly 0. At 1 its weight stays negligible beside ordinary terms (idf 1 → 256).
 */
export function fixedPointFactor(factor: number, scale: number): number {
  return factor > 0 ? Math.max(1, Math.round(factor * scale)) : 0;
}

/** Words (uint32) per signature of `bits` bits; bits must be a positive multiple of 64. */
export function wordsPerSignature(bits: number): number {
  if (!Number.isInteger(bits) || bits <= 0 || bits % 64 !== 0) {
    throw new RangeError(`signature length must be a positive multiple of 64, got ${bits}`);
  }
  return bits >>> 5;
}

/** acc[j] += weight · vector[j] for j < acc.length (the projections of one more term). */
export function accumulate(acc: Float64Array, vector: TermVector, weight: number): void {
  const n = acc.length;
  for (let j = 0; j < n; j++) acc[j] += weight * vector[j];
}

/** acc[j] += weight · vector[j] in int32 (wrapping, as WebAssembly's i32x4): integer weights. */
export function accumulateInt32(acc: Int32Array, vector: Int8Array, weight: number): void {
  const n = acc.length;
  for (let j = 0; j < n; j++) acc[j] = (acc[j] + weight * vector[j]) | 0;
}

/**
 * Writes the sign bits of `acc` as acc.length/32 words at out[offset …]: bit j (word j>>>5,
 * bit j&31) is 1 iff acc[j] > 0. A zero projection (e.g. an empty document) gives 0.
 */
export function signBits(acc: Float64Array | Int32Array, out: Uint32Array, offset: number): void {
  const words = acc.length >>> 5;
  if (acc instanceof Int32Array) {
    // Without a branch per sum (half of them mispredicted): x > 0 iff −x and ~x are both
    // negative as int32 (−(−2^31) is 2^31, −2^31 again as int32, and ~(−2^31) is positive).
    for (let w = 0; w < words; w++) {
      const base = w << 5;
      let word = 0;
      for (let b = 0; b < 32; b++) {
        const x = acc[base + b];
        word |= ((-x & ~x) >>> 31) << b;
      }
      out[offset + w] = word;
    }
    return;
  }
  for (let w = 0; w < words; w++) {
    const base = w << 5;
    let word = 0;
    for (let b = 0; b < 32; b++) if (acc[base + b] > 0) word |= 1 << b;
    out[offset + w] = word;
  }
}
