/**
 * The beam scan of one PLEB iteration: in the sorted order, each signature is compared with
 * the next `beam` ones only. The thesis's one-sided beam: the pair (order[p], order[q]) with
 * p < q ≤ p + beam is seen from p only, so each unordered pair is compared once per iteration
 * — half the work of comparing both sides.
 */

import { Triples } from "../util/triples.js";
import { hammingWithin, popcount2 } from "./hamming.js";

/**
 * Words of the prefix filter: the smallest even P ≤ W (W is even: bits ≡ 0 mod 64) with 16P − 4·√(8P) > maxDistance. Two
 * unrelated signatures differ in ≈ half their bits, so in P words by ≈ 16P ± √(8P) (binomial
 * 32P, ½); at 4σ above maxDistance nearly every far pair is rejected by its prefix alone.
 */
export function prefixWords(W: number, maxDistance: number): number {
  let P = 2;
  while (P < W && 16 * P - 4 * Math.sqrt(8 * P) <= maxDistance) P += 2;
  return Math.min(P, W);
}

/**
 * Compares order[p] with order[p+1 … min(p+beam, n−1)] for p ∈ [from, to) (n = order.length)
 * and calls out(i, j, d) for each pair with Hamming distance d ≤ maxDistance, i < j being the
 * two store indices. Chunks [from, to) of the order can be scanned in parallel: a chunk reads
 * up to `beam` positions past its end. Returns the number of pairs reported.
 *
 * Memory, not arithmetic, bounds this loop: neighbours in the sorted order lie anywhere in
 * the store, so each comparison would miss the cache. The first P words (prefixWords) of the
 * chunk's signatures are therefore gathered once, in sorted order, into a small contiguous
 * array (one random read per signature instead of one per comparison), and a pair is
 * compared in full only when its prefix distance is ≤ maxDistance. Distances only grow with
 * more words, so the pairs reported and their distances are exactly those of a full scan.
 *
 * With `labels` (a component label per store index), pairs whose two labels are equal are
 * skipped uncompared: they are known to be joined already (SpanningForest). The labels are
 * gathered in sorted order beside the prefixes, for the same reason.
 *
 * With `fresh` (1 per store index of a signature holding a new document, `--against-scan
 * new`), only the pairs with a fresh member are compared: the positions within `beam` of a
 * fresh one are gathered, a fresh position is compared with all its next `beam`, any other
 * with the fresh ones among them. The pairs reported, and their order, are those of the full
 * scan that have a fresh member; the work is ≈ 2·(fresh positions)·beam comparisons.
 */
export function beamScan(
  store: Uint32Array,
  W: number,
  order: Uint32Array,
  from: number,
  to: number,
  beam: number,
  maxDistance: number,
  out: (i: number, j: number, distance: number) => void,
  labels?: Uint32Array,
  fresh?: Uint8Array,
): number {
  const n = order.length;
  const last = Math.min(n, to + beam);
  const span = Math.max(0, last - from);
  const P = prefixWords(W, maxDistance);
  // next[k]: the first position ≥ from + k holding a fresh signature (every position without `fresh`).
  const next = new Uint32Array(span + 1);
  next[span] = last;
  for (let k = span - 1; k >= 0; k--) next[k] = fresh === undefined || fresh[order[from + k]] === 1 ? from + k : next[k + 1];
  const prefix = new Uint32Array(span * P);
  let previous = -Infinity;
  for (let p = from; p < last; p++) {
    if (next[p - from] === p) previous = p;
    // A position no pair with a fresh member reaches is never compared: its prefix stays unread.
    if (p - previous > beam && next[p - from] - p > beam) continue;
    // A plain loop: a subarray per position would allocate an object each time.
    const src = order[p] * W;
    const dst = (p - from) * P;
    for (let w = 0; w < P; w++) prefix[dst + w] = store[src + w];
  }
  // Without labels every position gets its own, so no pair is skipped.
  const label = new Uint32Array(span);
  for (let p = from; p < last; p++) label[p - from] = labels === undefined ? p : labels[order[p]];
  let found = 0;
  for (let p = from; p < to; p++) {
    const a = order[p];
    const end = Math.min(n, p + beam + 1);
    const pa = (p - from) * P;
    const la = label[p - from];
    // A fresh position (or any, without `fresh`) meets every next one; another only the fresh ones.
    const all = next[p - from] === p;
    for (let q = all ? p + 1 : next[p + 1 - from]; q < end; q = all ? q + 1 : next[q + 1 - from]) {
      if (label[q - from] === la) continue;
      let x = pa;
      let y = (q - from) * P;
      const xEnd = x + P;
      let d = 0;
      // Two words per step (P is even), stopping as soon as the prefix is too far apart.
      while (x < xEnd && d <= maxDistance) {
        d += popcount2(prefix[x++] ^ prefix[y++], prefix[x++] ^ prefix[y++]);
      }
      if (d > maxDistance) continue;
      const b = order[q];
      d = hammingWithin(store, a, b, W, maxDistance);
      if (d <= maxDistance) {
        if (a < b) out(a, b, d);
        else out(b, a, d);
        found++;
      }
    }
  }
  return found;
}

/** beamScan (skipping pairs with equal `labels`, comparing only pairs with a `fresh` member, if given) collecting the pairs into `into` (a new Triples by default), which it returns. */
export function beamScanPairs(
  store: Uint32Array,
  W: number,
  order: Uint32Array,
  from: number,
  to: number,
  beam: number,
  maxDistance: number,
  into: Triples = new Triples(),
  labels?: Uint32Array,
  fresh?: Uint8Array,
): Triples {
  beamScan(store, W, order, from, to, beam, maxDistance, (i, j, d) => into.push(i, j, d), labels, fresh);
  return into;
}
