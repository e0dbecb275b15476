/**
 * Charikar's random-hyperplane signature of a weighted bag of terms.
 *
 * For a document vector v (term weights, e.g. tf-idf) and random normals RND_0 … RND_{k−1},
 * bit j is 1 iff v·RND_j > 0. For two vectors at angle θ a random hyperplane separates them
 * with probability θ/π, so the relative Hamming similarity of two k-bit signatures is an
 * unbiased estimate of 1 − θ/π with standard deviation √(p(1−p)/k), p = θ/π.
 *
 * v·RND_j = Σ_t w_t·g(seed,t,j) is accumulated term by term in float64 over the float32 or
 * int8 term vectors of random-vectors.ts. Floating-point addition is not associative, so the
 * term order is part of the result: callers pass terms in first-occurrence order, and every
 * thread computes the same bits. With int8 vectors and integer weights (tf) the sums are
 * integers, accumulated exactly in int32 (`accumulateInt32`) while Σ|w|·127 < 2^31, so they
 * equal the float64 ones whatever the order.
 */

import type { TermVector } from "./sign-memory.js";

/** The largest sum of integer weights of one document whose int8 projections fit in int32. */
export const INT32_WEIGHT_LIMIT = Math.floor(0x7fff_ffff / 127);

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
  for (let w = 0; w < words; w++) {
    const base = w << 5;
    let word = 0;
    for (let b = 0; b < 32; b++) if (acc[base + b] > 0) word |= 1 << b;
    out[offset + w] = word;
  }
}
