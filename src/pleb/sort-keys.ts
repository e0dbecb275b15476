/**
 * Sort keys and the sorted order for one PLEB iteration.
 *
 * The thesis sorts the (bit-moved) signatures lexicographically. Here the order is decided
 * by the first 64 bits of the permuted signature, packed into two uint32 (hi = permuted bits
 * 0 … 31, lo = 32 … 63, permuted bit 0 most significant), ties by store index
 * (docs/ARCHITECTURE.md: ties beyond the key are broken by index). Comparing (hi, lo) as
 * unsigned numbers is then the lexicographic order of the first 64 permuted bits.
 */

import type { BitPermutation } from "./permutation.js";

/**
 * Writes the keys of signatures i ∈ [from, to) to hi[i] and lo[i] (absolute indices, so
 * several workers can fill disjoint ranges of the same shared key arrays).
 */
export function sortKeys(
  store: Uint32Array,
  W: number,
  perm: BitPermutation,
  from: number,
  to: number,
  hi: Uint32Array,
  lo: Uint32Array,
): void {
  if (perm.bits !== W * 32) throw new RangeError(`permutation of ${perm.bits} bits, store of ${W * 32}`);
  // Per key bit: the word of the signature it lives in and its shift within that word.
  const word = new Int32Array(64);
  const shift = new Int32Array(64);
  for (let k = 0; k < 64; k++) {
    const p = perm.positions[k];
    word[k] = p >>> 5;
    shift[k] = p & 31;
  }
  for (let i = from; i < to; i++) {
    const base = i * W;
    let h = 0;
    let l = 0;
    for (let k = 0; k < 32; k++) {
      h = (h << 1) | ((store[base + word[k]] >>> shift[k]) & 1);
      l = (l << 1) | ((store[base + word[k + 32]] >>> shift[k + 32]) & 1);
    }
    hi[i] = h;
    lo[i] = l;
  }
}
