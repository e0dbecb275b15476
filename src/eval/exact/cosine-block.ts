import type { Postings, SparseRows } from "../../features/sparse-rows.js";
import { meetsThreshold, unitCosine } from "../../util/similarity-threshold.js";

/** Pairs of one block: rows a < b and their cosines. */
export interface CosineBlock {
  a: Uint32Array;
  b: Uint32Array;
  similarity: Float64Array;
}

export interface CosineBlockTask {
  rows: SparseRows;
  postings: Postings;
  /** Query rows, increasing. */
  queries: Uint32Array;
  threshold: number;
  /** sampled[r] = 1 when row r is in the sample; null for all pairs. */
  sampled: Uint8Array | null;
}

/** Worker-local accumulator, reused while the number of rows stays the same. */
let scratch: { acc: Float64Array; seen: Uint8Array; touched: Uint32Array } | null = null;

/**
 * One block of the exact all-pairs cosine: the rows `queries` scored against the other rows
 * through the inverted index. For query row i, acc[j] = Σ_{t ∈ i} w(t, i) · w(t, j) sums the
 * products over the terms of i in row order (a fixed order, so results are reproducible and
 * independent of blocking); only rows j that share a term are touched, so a block costs
 * Σ_{t ∈ queries} df(t) multiply-adds instead of a dense scan.
 *
 * Which partners count, so that every unordered pair is produced exactly once:
 * - without a sample (`sampled` null): j < i (the postings are in row order, so the scan of
 *   a term stops at the first j ≥ i);
 * - with a sample: all j ≠ i, except sampled j > i (that pair is produced from j's side).
 *
 * Returns the pairs with unitCosine(acc) meeting the threshold (util/similarity-threshold.ts) as (row a < row b) and their cosines.
 */
export function cosineBlock(task: CosineBlockTask): CosineBlock {
  const { rows: m, postings: ix, queries, threshold, sampled } = task;
  const n = m.rowPtr.length - 1;
  if (scratch === null || scratch.acc.length !== n) {
    scratch = { acc: new Float64Array(n), seen: new Uint8Array(n), touched: new Uint32Array(n) };
  }
  const { acc, seen, touched } = scratch;
  const outA: number[] = [];
  const outB: number[] = [];
  const outS: number[] = [];
  for (let q = 0; q < queries.length; q++) {
    const i = queries[q];
    let used = 0;
    for (let k = m.rowPtr[i]; k < m.rowPtr[i + 1]; k++) {
      const t = m.cols[k];
      const wi = m.vals[k];
      const end = ix.termPtr[t + 1];
      for (let p = ix.termPtr[t]; p < end; p++) {
        const j = ix.rows[p];
        if (j >= i) {
          if (sampled === null) break;
          if (j === i || sampled[j] === 1) continue;
        }
        if (seen[j] === 0) {
          seen[j] = 1;
          touched[used++] = j;
        }
        acc[j] += wi * ix.weights[p];
      }
    }
    for (let u = 0; u < used; u++) {
      const j = touched[u];
      const s = unitCosine(acc[j]);
      if (meetsThreshold(s, threshold)) {
        outA.push(Math.min(i, j));
        outB.push(Math.max(i, j));
        outS.push(s);
      }
      acc[j] = 0;
      seen[j] = 0;
    }
  }
  return { a: Uint32Array.from(outA), b: Uint32Array.from(outB), similarity: Float64Array.from(outS) };
}
