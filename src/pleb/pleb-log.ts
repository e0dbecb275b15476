import type { Proportion } from "../util/binomial-interval.js";
import type { SignatureStore } from "../runs/signature-store.js";
import type { FoundPairs } from "./found-pairs.js";
import { identicalPairs } from "./run-pleb.js";
import type { PairColumns } from "./spanning-forest.js";

/**
 * One line of pleb-log.tsv: what an iteration found first (0 = identical signatures), as
 * document pairs (`--pairs all`) or as links (`--pairs edges`), and the running total.
 */
export interface IterationRow {
  iteration: number;
  fresh: number;
  total: number;
  seconds: number;
  /** Share of the reference pairs found so far (only with a reference). */
  recall?: number;
  /** Sampled recall after the iteration group that ends here (--estimate-recall). */
  estimate?: Proportion;
}

/** Follows the document pairs PLEB finds against a reference (pleb --reference). */
export interface RecallTracker {
  /** Counts the pairs of documents that share a signature. */
  addIdentical(): void;
  /** Counts the document pairs of a newly found signature pair. */
  addSignaturePair(i: number, j: number): void;
  recall(): number;
}

/**
 * The per-iteration log the thesis tuned its parameters by: how many document pairs each
 * iteration found first, the running total, its time, and with a reference the running
 * recall. A signature pair (i, j) stands for |docs(i)|·|docs(j)| document pairs.
 */
export function iterationLog(
  store: SignatureStore,
  found: FoundPairs,
  seconds: readonly number[],
  reference?: RecallTracker,
): IterationRow[] {
  const iterations = seconds.length;
  const docsOf = (i: number) => store.offsets[i + 1] - store.offsets[i];
  const fresh = new Float64Array(iterations + 1);
  const byIteration: [number, number][][] = Array.from({ length: iterations + 1 }, () => []);
  fresh[0] = identicalPairs(store);
  for (const [i, j, , iteration] of found.pairs()) {
    fresh[iteration] += docsOf(i) * docsOf(j);
    if (reference !== undefined) byIteration[iteration].push([i, j]);
  }
  reference?.addIdentical();
  const rows: IterationRow[] = [];
  let total = 0;
  for (let it = 0; it <= iterations; it++) {
    total += fresh[it];
    const row: IterationRow = { iteration: it, fresh: fresh[it], total, seconds: it === 0 ? 0 : seconds[it - 1] };
    if (reference !== undefined) {
      for (const [i, j] of byIteration[it]) reference.addSignaturePair(i, j);
      row.recall = reference.recall();
    }
    rows.push(row);
  }
  return rows;
}

/**
 * The log of `--pairs edges`, counted in links: each link joins two clusters of documents
 * into one, so after an iteration the total is (documents with a signature) − (clusters,
 * singletons included). Iteration 0 counts the links inside groups of identical signatures
 * (m − 1 for m documents); iteration t the forest pairs first found at t, i.e. the joins
 * of clusters that t made. Later iterations finding only pairs inside known clusters log 0.
 */
export function forestLog(store: SignatureStore, forest: PairColumns, seconds: readonly number[]): IterationRow[] {
  const fresh = new Float64Array(seconds.length + 1);
  fresh[0] = store.offsets[store.count] - store.count;
  for (const t of forest.iteration) fresh[t]++;
  let total = 0;
  return Array.from(fresh, (f, it) => {
    total += f;
    return { iteration: it, fresh: f, total, seconds: it === 0 ? 0 : seconds[it - 1] };
  });
}
