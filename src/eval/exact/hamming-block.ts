import { hammingWithin } from "../../pleb/hamming.js";

/**
 * One tile of the exact all-pairs Hamming comparison of a signature store (n signatures of
 * W 32-bit words back to back): signature i ∈ [iFrom, iTo) against j ∈ [jFrom, jTo), and
 * with `upper` only j > i (the upper triangle, each unordered pair once). Pairs with Hamming
 * distance d ≤ maxDistance are appended to `out` as (i, j, d) triples, i ascending, then j
 * ascending; the return value is the number appended. Relative Hamming similarity is
 * 1 − d/bits, so "similarity ≥ T" is "d ≤ ⌊bits·(1 − T)⌋" (maxDistanceFor).
 *
 * This is the portable TypeScript kernel (any W); `hamming-wasm.ts` is the fast one for
 * signatures of a multiple of 256 bits and produces the same triples in the same order.
 */
export function hammingTileTs(
  store: Uint32Array,
  W: number,
  iFrom: number,
  iTo: number,
  jFrom: number,
  jTo: number,
  upper: boolean,
  maxDistance: number,
  out: Uint32Array,
  outAt = 0,
): number {
  let at = outAt;
  for (let i = iFrom; i < iTo; i++) {
    for (let j = upper ? Math.max(jFrom, i + 1) : jFrom; j < jTo; j++) {
      const d = hammingWithin(store, i, j, W, maxDistance);
      if (d <= maxDistance) {
        out[at++] = i;
        out[at++] = j;
        out[at++] = d;
      }
    }
  }
  return (at - outAt) / 3;
}
