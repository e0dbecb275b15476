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
import { wordOrder } from "../util/radix-order.js";

/** Key bits [first, first + 32) as (word of the signature, shift within it) per bit. */
function keyBits(perm: BitPermutation, first: number): { word: Int32Array; shift: Int32Array } {
  const word = new Int32Array(32);
  const shift = new Int32Array(32);
  for (let k = 0; k < 32; k++) {
    const p = perm.positions[first + k];
    word[k] = p >>> 5;
    shift[k] = p & 31;
  }
  return { word, shift };
}

/** The 32 key bits of keyBits packed (the first most significant) for the signature at `base`. */
function packKey(store: Uint32Array, base: number, word: Int32Array, shift: Int32Array): number {
  let key = 0;
  for (let k = 0; k < 32; k++) key = (key << 1) | ((store[base + word[k]] >>> shift[k]) & 1);
  return key >>> 0;
}

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
  const high = keyBits(perm, 0);
  const low = keyBits(perm, 32);
  for (let i = from; i < to; i++) {
    hi[i] = packKey(store, i * W, high.word, high.shift);
    lo[i] = packKey(store, i * W, low.word, low.shift);
  }
}

/** The low 32 key bits (sortKeys' `lo`) of signature i under `perm`. */
export function lowKey(store: Uint32Array, W: number, perm: BitPermutation, i: number): number {
  // One signature at a time (a merge's ties): no tables to build.
  let l = 0;
  for (let k = 32; k < 64; k++) {
    const p = perm.positions[k];
    l = (l << 1) | ((store[i * W + (p >>> 5)] >>> (p & 31)) & 1);
  }
  return l >>> 0;
}

/** Runs of equal high keys up to this length are put in order by insertion; longer ones by a radix sort. */
const INSERTION_RUN = 32;

/**
 * The store indices 0 … n−1 sorted by (hi, lo, index), into `order` (n = hi.length): the order
 * of sortOrder over sortKeys' keys. Unrelated signatures almost never share 32 key bits, so
 * `hi` is computed for every signature and sorted, and `lo` only for the runs of equal `hi`
 * (near copies), which are then ordered by it: half the key bits and half the radix passes.
 * `lo` is written for those runs' signatures only.
 */
export function keyOrder(store: Uint32Array, W: number, perm: BitPermutation, hi: Uint32Array, lo: Uint32Array, order: Uint32Array): void {
  const n = hi.length;
  if (perm.bits !== W * 32) throw new RangeError(`permutation of ${perm.bits} bits, store of ${W * 32}`);
  const high = keyBits(perm, 0);
  for (let i = 0; i < n; i++) hi[i] = packKey(store, i * W, high.word, high.shift);
  // Stable from the identity: a run of equal hi is in index order.
  order.set(wordOrder(hi, n));
  const low = keyBits(perm, 32);
  for (let start = 0; start < n; ) {
    const h = hi[order[start]];
    let end = start + 1;
    while (end < n && hi[order[end]] === h) end++;
    if (end - start > 1) {
      for (let k = start; k < end; k++) lo[order[k]] = packKey(store, order[k] * W, low.word, low.shift);
      sortRunByLow(order, start, end, lo);
    }
    start = end;
  }
}

/** Sorts order[start, end) (in index order) by lo, stably: ties stay in index order. */
function sortRunByLow(order: Uint32Array, start: number, end: number, lo: Uint32Array): void {
  if (end - start <= INSERTION_RUN) {
    for (let k = start + 1; k < end; k++) {
      const i = order[k];
      const l = lo[i];
      let j = k - 1;
      while (j >= start && lo[order[j]] > l) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = i;
    }
    return;
  }
  const run = order.slice(start, end);
  const sorted = wordOrder(
    run.map((i) => lo[i]),
    run.length,
  );
  for (let k = 0; k < run.length; k++) order[start + k] = run[sorted[k]];
}
