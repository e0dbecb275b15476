import type { TaskPool } from "../../executor/in-process-pool.js";
import type { ReferenceTasks } from "./reference-entry.js";
import type { Reporter } from "../../executor/progress.js";
import type { ScoredPairs } from "../pairs-file.js";
import { balancedRanges } from "./balance.js";
import { runBlocks, sampleDigest, startReference, type ReferenceSteps } from "./reference-blocks.js";
import { invertRows, type SparseRows } from "../../features/sparse-rows.js";

export interface SimilarityOptions {
  threshold: number;
  /** sampled[ordinal] = 1 for the documents of a sample list; null: all pairs. */
  sampled: Uint8Array | null;
  /** Blocks per worker (more: better balance, more task overhead). */
  blocksPerWorker?: number;
  /** Where the blocks are kept, to be resumed (the `similarity` command); absent: nothing kept. */
  steps?: ReferenceSteps;
}

/**
 * Exact all-pairs cosine (the thesis's `similarity`) on the pool: the rows are split into
 * blocks of about equal work, each block is scored by `cosineBlock` against the shared
 * inverted index, and the pairs come back as corpus ordinals. Memory: the rows and the
 * index (2 × nonzeros), one accumulator of n doubles per worker, and the pairs found.
 */
export async function allPairsSimilarity(
  rows: SparseRows,
  opts: SimilarityOptions,
  pool: TaskPool<ReferenceTasks>,
  reporter: Reporter,
): Promise<ScoredPairs> {
  const n = rows.rowPtr.length - 1;
  const postings = invertRows(rows);
  let sampledRows: Uint8Array | null = null;
  let queries: Uint32Array;
  if (opts.sampled !== null) {
    sampledRows = new Uint8Array(new SharedArrayBuffer(n));
    const list: number[] = [];
    for (let r = 0; r < n; r++) {
      if (opts.sampled[rows.ordinals[r]] === 1) {
        sampledRows[r] = 1;
        list.push(r);
      }
    }
    queries = Uint32Array.from(list);
  } else queries = Uint32Array.from({ length: n }, (_, r) => r);
  // Row i scans the earlier postings of its terms: about Σ_t df(t)·(i/n) work, i.e. ∝ i·nnz(i).
  const cost = (q: number) => (sampledRows === null ? queries[q] + 1 : n) * (rows.rowPtr[queries[q] + 1] - rows.rowPtr[queries[q]]);
  const planned = { "--threshold": opts.threshold, "--sample-list": sampleDigest(opts.sampled), blocks: pool.threads * (opts.blocksPerWorker ?? 16) };
  const { step, config } = await startReference(opts.steps, "similarity", planned);
  const blocks = balancedRanges(queries.length, config.blocks, cost);
  const tasks = blocks.map(([from, to]) => ({ rows, postings, queries: queries.subarray(from, to), threshold: opts.threshold, sampled: sampledRows }));
  const parts = await runBlocks("similarity", step, pool, "cosine", tasks, reporter);
  const total = parts.reduce((s, p) => s + p.a.length, 0);
  const out: ScoredPairs = { a: new Uint32Array(total), b: new Uint32Array(total), similarity: new Float64Array(total) };
  let k = 0;
  for (const p of parts) {
    for (let t = 0; t < p.a.length; t++, k++) {
      out.a[k] = rows.ordinals[p.a[t]];
      out.b[k] = rows.ordinals[p.b[t]];
      out.similarity[k] = p.similarity[t];
    }
  }
  return out;
}
