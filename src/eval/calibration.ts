import { wilsonInterval, type Proportion } from "./binomial-interval.js";
import type { ScoredPairs } from "./pairs-file.js";

/** Exact-similarity thresholds of calibration.tsv: 0.50, 0.55, …, 1.00. */
export const CALIBRATION_THRESHOLDS: readonly number[] = Array.from({ length: 11 }, (_, k) => (50 + 5 * k) / 100);

export interface CalibrationRow {
  threshold: number;
  /** Reference pairs (exact similarity ≥ threshold) in one cluster / all reference pairs. */
  recall: Proportion;
  /** Reference pairs in one cluster / pairs in one cluster (both with a sampled document). */
  precision: Proportion;
}

/**
 * Recall and precision of a run's clusters against the exact similarity, on a document
 * sample. The pairs counted are the unordered document pairs with at least one sampled
 * document. Reference at threshold t: those with exact similarity ≥ t (`reference` holds
 * every such pair for the smallest threshold). A pair is found when the run put both
 * documents in one cluster (so recall is transitive: a pair joined through a third document
 * counts). Precision at t: the share of the sampled documents' in-cluster pairs whose exact
 * similarity is ≥ t — counted from the cluster sizes, never listed. Intervals: Wilson 95 %.
 */
export function calibrationRows(reference: ScoredPairs, clusterOf: Uint32Array, sampled: Uint8Array, thresholds: readonly number[]): CalibrationRow[] {
  let clusters = 0;
  for (const c of clusterOf) clusters = Math.max(clusters, c);
  const size = new Uint32Array(clusters + 1);
  const hits = new Uint32Array(clusters + 1);
  for (let d = 0; d < clusterOf.length; d++) {
    size[clusterOf[d]]++;
    hits[clusterOf[d]] += sampled[d];
  }
  const pairs = (m: number) => (m * (m - 1)) / 2;
  let clustered = 0;
  for (let c = 1; c <= clusters; c++) clustered += pairs(size[c]) - pairs(size[c] - hits[c]);
  return thresholds.map((threshold) => {
    let total = 0;
    let found = 0;
    for (let k = 0; k < reference.a.length; k++) {
      if (reference.similarity[k] < threshold) continue;
      total++;
      const c = clusterOf[reference.a[k]];
      if (c !== 0 && c === clusterOf[reference.b[k]]) found++;
    }
    return { threshold, recall: wilsonInterval(found, total), precision: wilsonInterval(found, clustered) };
  });
}

/** The smallest threshold whose recall's lower bound reaches `target`: the run finds that share of the pairs at least this similar. */
export function recommendedThreshold(rows: readonly CalibrationRow[], target: number): number | undefined {
  return rows.find((r) => r.recall.low >= target)?.threshold;
}

const CALIBRATION_HEADER = "threshold\trecall\trecall_low\trecall_high\tprecision\tprecision_low\tprecision_high";

/** calibration.tsv: one row per threshold, 4 decimals, an empty field where nothing is known (no pair). */
export function calibrationTsv(rows: readonly CalibrationRow[]): string {
  const f = (x: number) => (Number.isNaN(x) ? "" : x.toFixed(4));
  const lines = rows.map((r) => [r.threshold.toFixed(2), f(r.recall.estimate), f(r.recall.low), f(r.recall.high), f(r.precision.estimate), f(r.precision.low), f(r.precision.high)].join("\t"));
  return [CALIBRATION_HEADER, ...lines].join("\n") + "\n";
}
