import type { ExecutionOptions, PlebOptions } from "../options.js";
import type { SignatureStore } from "../runs/signature-store.js";
import type { WorkerPool } from "../coordinator/pool.js";
import type { Reporter } from "../coordinator/progress.js";
import { FoundPairs } from "./found-pairs.js";
import { maxDistanceFor } from "./hamming.js";
import { sortOrder } from "./sort-keys.js";

/** One line of pleb-log.tsv: document pairs first found by an iteration (0 = identical signatures). */
export interface IterationRow {
  iteration: number;
  newPairs: number;
  totalPairs: number;
  seconds: number;
  /** Share of the reference pairs found so far (only with a reference). */
  recall?: number;
}

/** Follows the document pairs PLEB finds against a reference (pleb --reference). */
export interface RecallTracker {
  /** Counts the pairs of documents that share a signature. */
  addIdentical(): void;
  /** Counts the document pairs of a newly found signature pair. */
  addSignaturePair(i: number, j: number): void;
  recall(): number;
}

export interface PlebResult {
  found: FoundPairs;
  log: IterationRow[];
  /** Signature comparisons made by the beam scans. */
  comparisons: number;
}

function ranges(n: number, parts: number): [number, number][] {
  const step = Math.ceil(n / Math.max(1, parts));
  const out: [number, number][] = [];
  for (let from = 0; from < n; from += step) out.push([from, Math.min(n, from + step)]);
  return out;
}

/** Document pairs inside each group of identical signatures: Σ m(m−1)/2. */
export function identicalPairs(store: SignatureStore): number {
  let pairs = 0;
  for (let i = 0; i < store.count; i++) {
    const m = store.offsets[i + 1] - store.offsets[i];
    pairs += (m * (m - 1)) / 2;
  }
  return pairs;
}

/**
 * PLEB (the thesis's `hamming`): `iterations` times sort the signatures by their first 64
 * bits under the current permutation, compare each with the next `beam` ones, keep the pairs
 * within the Hamming threshold, and apply `shiftCount` more random transpositions. Key
 * extraction and beam scans run in chunks on the pool; the chunks' results are merged in
 * chunk order, so the found pairs do not depend on the number of workers.
 */
export async function runPleb(
  store: SignatureStore,
  opts: PlebOptions,
  exec: ExecutionOptions,
  pool: WorkerPool,
  reporter: Reporter,
  reference?: RecallTracker,
): Promise<PlebResult> {
  const n = store.count;
  const bits = store.words * 32;
  const maxDistance = maxDistanceFor(bits, opts.threshold);
  const found = new FoundPairs(Math.max(n, 1));
  const groupPairs = identicalPairs(store);
  const log: IterationRow[] = [{ iteration: 0, newPairs: groupPairs, totalPairs: groupPairs, seconds: 0 }];
  if (reference !== undefined) {
    reference.addIdentical();
    log[0].recall = reference.recall();
  }
  const docsOf = (i: number) => store.offsets[i + 1] - store.offsets[i];
  const hi = new Uint32Array(new SharedArrayBuffer(n * 4));
  const lo = new Uint32Array(new SharedArrayBuffer(n * 4));
  const shared = { signatures: store.signatures, words: store.words, seed: opts.seed, shiftCount: opts.shiftCount };
  const keyRanges = ranges(n, exec.workers);
  const scanRanges = ranges(Math.max(0, n - 1), exec.workers * 4);
  let total = groupPairs;
  let comparisons = 0;
  for (let b = 1; b <= opts.beam; b++) comparisons += Math.max(0, n - b);
  const progress = reporter.progress("pleb", "iterations", opts.iterations);
  for (let iteration = 1; iteration <= opts.iterations && n > 1; iteration++) {
    const t0 = performance.now();
    await Promise.all(
      keyRanges.map(([from, to]) => pool.run("keys", { ...shared, iteration: iteration - 1, from, to, hi, lo })),
    );
    const sorted = sortOrder(hi, lo, n);
    const order = new Uint32Array(new SharedArrayBuffer(n * 4));
    order.set(sorted);
    const results = await Promise.all(
      scanRanges.map(([from, to]) =>
        pool.run<Uint32Array>("scan", { signatures: store.signatures, words: store.words, order, from, to, beam: opts.beam, maxDistance }),
      ),
    );
    let fresh = 0;
    for (const triples of results) {
      const added = found.addTriples(triples);
      for (let k = 0; k < added.length; k += 3) {
        fresh += docsOf(added[k]) * docsOf(added[k + 1]);
        reference?.addSignaturePair(added[k], added[k + 1]);
      }
    }
    total += fresh;
    log.push({ iteration, newPairs: fresh, totalPairs: total, seconds: Number(((performance.now() - t0) / 1000).toFixed(3)) });
    if (reference !== undefined) log[log.length - 1].recall = reference.recall();
    progress.update(iteration);
  }
  progress.finish();
  return { found, log, comparisons: comparisons * (n > 1 ? opts.iterations : 0) };
}
