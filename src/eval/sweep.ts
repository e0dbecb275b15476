import { retrieval, type Retrieval } from "./measures.js";
import type { VirtualPairs } from "./run-pairs.js";
import { meetsThreshold } from "../util/similarity-threshold.js";

export interface SweepRow extends Retrieval {
  threshold: number;
}

/**
 * Precision, recall and F of the candidate pairs with similarity ≥ t against a fixed
 * reference of `reference` pairs, for each t of `thresholds` (the thesis's graphs
 * 2.29/2.30: how they move as the Hamming threshold moves). `hits[e]` is the number of
 * reference pairs among the document pairs of candidate entry e; a threshold below the one
 * the candidate file was made with cannot add pairs.
 */
export function sweep(reference: number, candidate: VirtualPairs, hits: Float64Array, thresholds: readonly number[]): SweepRow[] {
  const order = new Uint32Array(candidate.entries + 1);
  for (let e = 0; e < order.length; e++) order[e] = e;
  order.sort((x, y) => candidate.similarity(y) - candidate.similarity(x));
  const ts = [...thresholds].sort((x, y) => y - x);
  const rows: SweepRow[] = [];
  let taken = 0;
  let pairs = 0;
  let tp = 0;
  for (const t of ts) {
    for (; taken < order.length && meetsThreshold(candidate.similarity(order[taken]), t); taken++) {
      pairs += candidate.weight(order[taken]);
      tp += hits[order[taken]];
    }
    rows.push({ threshold: t, ...retrieval(reference, pairs, tp) });
  }
  return rows.sort((x, y) => x.threshold - y.threshold);
}

/** from, from+step, …, ≤ to (to 4 decimals, so 0.1 steps do not drift). */
export function thresholdRange(from: number, to: number, step: number): number[] {
  if (!(step > 0) || !(from <= to)) throw new RangeError(`bad range ${from}:${to}:${step}`);
  const out: number[] = [];
  for (let k = 0; ; k++) {
    const t = Number((from + k * step).toFixed(4));
    if (t > to + 1e-9) break;
    out.push(t);
  }
  return out;
}
