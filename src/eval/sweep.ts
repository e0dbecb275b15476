import { retrieval, type Retrieval } from "./measures.js";

export interface SweepRow extends Retrieval {
  threshold: number;
}

/**
 * Precision, recall and F of the candidate pairs with similarity ≥ t against a fixed
 * reference set, for each t of `thresholds` (the thesis's graphs 2.29/2.30: how they move
 * as the Hamming threshold moves). `candidate` maps pair keys to similarities; a
 * threshold below the one the candidate file was made with cannot add pairs.
 */
export function sweep(reference: ReadonlySet<string>, candidate: ReadonlyMap<string, number>, thresholds: readonly number[]): SweepRow[] {
  const entries = [...candidate].map(([k, s]) => ({ s, hit: reference.has(k) })).sort((x, y) => y.s - x.s);
  const ts = [...thresholds].sort((x, y) => y - x);
  const rows: SweepRow[] = [];
  let taken = 0;
  let tp = 0;
  for (const t of ts) {
    while (taken < entries.length && entries[taken].s >= t) tp += entries[taken++].hit ? 1 : 0;
    rows.push({ threshold: t, ...retrieval(reference.size, taken, tp) });
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
