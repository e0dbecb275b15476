/**
 * The beam scan of one PLEB iteration: in the sorted order, each signature is compared with
 * the next `beam` ones only. The thesis's one-sided beam: the pair (order[p], order[q]) with
 * p < q ≤ p + beam is seen from p only, so each unordered pair is compared once per iteration
 * — half the work of comparing both sides.
 */

import { hammingWithin } from "./hamming.js";

/**
 * Compares order[p] with order[p+1 … min(p+beam, n−1)] for p ∈ [from, to) (n = order.length)
 * and calls out(i, j, d) for each pair with Hamming distance d ≤ maxDistance, i < j being the
 * two store indices. Chunks [from, to) of the order can be scanned in parallel: a chunk reads
 * up to `beam` positions past its end. Returns the number of pairs reported.
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
): number {
  const n = order.length;
  let found = 0;
  for (let p = from; p < to; p++) {
    const a = order[p];
    const end = Math.min(n, p + beam + 1);
    for (let q = p + 1; q < end; q++) {
      const b = order[q];
      const d = hammingWithin(store, a, b, W, maxDistance);
      if (d <= maxDistance) {
        if (a < b) out(a, b, d);
        else out(b, a, d);
        found++;
      }
    }
  }
  return found;
}

/**
 * A growable list of (i, j, distance) triples in one Uint32Array, cheap to fill and to post
 * between threads (`toArray().buffer` is transferable).
 */
export class PairList {
  private data: Uint32Array;
  private used = 0;

  constructor(initialPairs = 1024) {
    this.data = new Uint32Array(3 * Math.max(1, initialPairs));
  }

  /** Number of pairs. */
  get length(): number {
    return this.used / 3;
  }

  push(i: number, j: number, distance: number): void {
    if (this.used === this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.used++] = i;
    this.data[this.used++] = j;
    this.data[this.used++] = distance;
  }

  /** A trimmed copy: pair k is [3k] = i, [3k+1] = j, [3k+2] = distance. */
  toArray(): Uint32Array {
    return this.data.slice(0, this.used);
  }
}

/** beamScan collecting the pairs into `into` (a new PairList by default), which it returns. */
export function beamScanPairs(
  store: Uint32Array,
  W: number,
  order: Uint32Array,
  from: number,
  to: number,
  beam: number,
  maxDistance: number,
  into: PairList = new PairList(),
): PairList {
  beamScan(store, W, order, from, to, beam, maxDistance, (i, j, d) => into.push(i, j, d));
  return into;
}
