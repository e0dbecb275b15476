import { fmix32, mixA, mixB } from "../../features/hash.js";

/**
 * Jaccard resemblance |A∩B| / |A∪B| of two sorted sets without repeats, given as the
 * ranges [aFrom, aTo) and [bFrom, bTo) of `values` (they may be two arrays). 0 for two
 * empty sets.
 */
export function sortedJaccard(
  a: ArrayLike<number>, aFrom: number, aTo: number,
  b: ArrayLike<number>, bFrom: number, bTo: number,
): number {
  let i = aFrom;
  let j = bFrom;
  let shared = 0;
  while (i < aTo && j < bTo) {
    const x = a[i];
    const y = b[j];
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  const union = aTo - aFrom + (bTo - bFrom) - shared;
  return union === 0 ? 0 : shared / union;
}

/** Sorts `values` ascending in place and moves its distinct values to the front; returns how many. */
export function sortUnique(values: Float64Array): number {
  values.sort();
  let n = 0;
  for (let i = 0; i < values.length; i++) if (i === 0 || values[i] !== values[i - 1]) values[n++] = values[i];
  return n;
}

/** The distinct values of a list, sorted ascending. */
export function sortedSet(values: ArrayLike<number>): Float64Array {
  const sorted = Float64Array.from(values);
  return sorted.slice(0, sortUnique(sorted));
}

/**
 * A 64-bit digest of the sorted set values[from, to) (53-bit integers), as two words at
 * out[at], out[at + 1]: equal sets give equal digests, the key of their identity group.
 */
export function setDigest(values: ArrayLike<number>, from: number, to: number, out: Uint32Array, at: number): void {
  let a = 0x3c6ef372;
  let b = 0x510e527f;
  for (let i = from; i < to; i++) {
    const lo = values[i] >>> 0;
    const hi = Math.floor(values[i] / 0x1_0000_0000);
    a = mixA(mixA(a, lo), hi);
    b = mixB(mixB(b, lo), hi);
  }
  out[at] = fmix32(b ^ (to - from)) >>> 0;
  out[at + 1] = fmix32(a ^ (to - from)) >>> 0;
}
