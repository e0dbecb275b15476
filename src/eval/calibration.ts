import { readFile } from "node:fs/promises";
import { errorCode } from "../util/atomic.js";
import { VertdupError } from "../core/errors.js";
import { wilsonInterval, type Proportion } from "../util/binomial-interval.js";
import { pairShare, stratifiedRatio, type StratifiedDesign } from "./stratified-sample.js";
import type { ScoredPairs } from "./pairs-file.js";
import { meetsThreshold } from "../util/similarity-threshold.js";

/** The calibration table of a run's output directory (`calibrate`, `--estimate-recall`). */
export const CALIBRATION_FILE = "calibration.tsv";


/** Exact-similarity thresholds of calibration.tsv: 0.50, 0.55, …, 1.00. */
export const CALIBRATION_THRESHOLDS: readonly number[] = Array.from({ length: 11 }, (_, k) => (50 + 5 * k) / 100);

/**
 * simhash384's thresholds, cosine 0.90, 0.91, …, 1.00: its --max-distance aims at cosines
 * near 1 (cos(π·5/384) = 0.9992 by default), and the cosine of raw token counts is high for
 * any two texts of one language (function words), so that lower thresholds would hold most
 * pairs of the corpus.
 */
export const SIMHASH_CALIBRATION_THRESHOLDS: readonly number[] = Array.from({ length: 11 }, (_, k) => (90 + k) / 100);

export interface CalibrationRow {
  threshold: number;
  /** Reference pairs (exact similarity ≥ threshold) in one cluster / all reference pairs. */
  recall: Proportion;
  /** Reference pairs in one cluster / pairs in one cluster (both with a sampled document). */
  precision: Proportion;
  /**
   * The number of independent trials of each interval above: the pairs counted, Wilson's
   * interval (uniform), or the effective number of stratifiedRatio, Clopper–Pearson's (stratified).
   */
  recallTrials: number;
  precisionTrials: number;
  /** Stratified: the recall residuals' standard deviation in each stratum (where more draws narrow the interval most). */
  recallSpread?: Float64Array;
}

/** Half the width of a row's recall interval (the "± points" of a target); NaN where no pair was counted (no interval). */
export function recallHalfWidth(row: CalibrationRow): number {
  return Number.isNaN(row.recall.estimate) ? NaN : (row.recall.high - row.recall.low) / 2;
}

/** The largest recall half-width of the rows with pairs counted (0 without any). */
export function widestRecall(rows: readonly CalibrationRow[]): number {
  let widest = 0;
  for (const r of rows) if (recallHalfWidth(r) > widest) widest = recallHalfWidth(r);
  return widest;
}

/**
 * Recall and precision of a run's clusters against the exact similarity, on a document
 * sample. The pairs counted are the unordered document pairs with at least one sampled
 * document. Reference at threshold t: those with exact similarity ≥ t (`reference` holds
 * every such pair for the smallest threshold). A pair is found when the run put both
 * documents in one cluster (so recall is transitive: a pair joined through a third document
 * counts). Precision at t: the share of the sampled documents' in-cluster pairs whose exact
 * similarity is ≥ t — counted from the cluster sizes, never listed. Uniform sample (no
 * `design`): shares of the pairs, Wilson 95 %. Stratified sample: each sampled document
 * brings its share (pairShare) of its reference pairs, found pairs and in-cluster pairs,
 * weighted by its stratum (stratifiedRatio).
 */
export function calibrationRows(reference: ScoredPairs, clusterOf: Uint32Array, sampled: Uint8Array, thresholds: readonly number[], design?: StratifiedDesign): CalibrationRow[] {
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
  if (design !== undefined) return stratifiedRows(reference, clusterOf, sampled, size, clustered, thresholds, design);
  return thresholds.map((threshold) => {
    let total = 0;
    let found = 0;
    for (let k = 0; k < reference.a.length; k++) {
      if (!meetsThreshold(reference.similarity[k], threshold)) continue;
      total++;
      const c = clusterOf[reference.a[k]];
      if (c !== 0 && c === clusterOf[reference.b[k]]) found++;
    }
    return { threshold, recall: wilsonInterval(found, total), precision: wilsonInterval(found, clustered), recallTrials: total, precisionTrials: clustered };
  });
}

function stratifiedRows(reference: ScoredPairs, clusterOf: Uint32Array, sampled: Uint8Array, size: Uint32Array, clustered: number, thresholds: readonly number[], design: StratifiedDesign): CalibrationRow[] {
  let n = 0;
  for (const s of sampled) n += s;
  const docs = new Uint32Array(n);
  const slot = new Int32Array(sampled.length).fill(-1);
  for (let d = 0, k = 0; d < sampled.length; d++) if (sampled[d] === 1) (docs[k] = d, slot[d] = k++);
  // An in-cluster pair's documents share a stratum: half of it to each (pairShare).
  const inCluster = new Float64Array(n);
  for (let k = 0; k < n; k++) if (clusterOf[docs[k]] !== 0) inCluster[k] = (size[clusterOf[docs[k]]] - 1) / 2;
  const share = pairShare(design);
  return thresholds.map((threshold) => {
    const found = new Float64Array(n);
    const similar = new Float64Array(n);
    let total = 0;
    for (let k = 0; k < reference.a.length; k++) {
      if (!meetsThreshold(reference.similarity[k], threshold)) continue;
      total++;
      const a = reference.a[k];
      const b = reference.b[k];
      const hit = clusterOf[a] !== 0 && clusterOf[a] === clusterOf[b] ? 1 : 0;
      const ha = design.stratumOf[a];
      const hb = design.stratumOf[b];
      for (const [d, part] of [[slot[a], share(ha, hb)], [slot[b], share(hb, ha)]]) {
        if (d < 0) continue;
        similar[d] += part;
        found[d] += hit * part;
      }
    }
    const { trials: recallTrials, spread: recallSpread, ...recall } = stratifiedRatio(design, docs, found, similar, total);
    const { trials: precisionTrials, spread: _, ...precision } = stratifiedRatio(design, docs, found, inCluster, clustered);
    return { threshold, recall, precision, recallTrials, precisionTrials, recallSpread };
  });
}

/** The smallest threshold whose recall's lower bound reaches `target`: the run finds that share of the pairs at least this similar. */
export function recommendedThreshold(rows: readonly CalibrationRow[], target: number): number | undefined {
  return rows.find((r) => r.recall.low >= target)?.threshold;
}

/** Columns of calibration.tsv, in the names of `CalibrationTableRow` (fractions, intervals at 95 %). */
const COLUMNS = {
  threshold: "threshold",
  recall: "recall",
  recallLow: "recall_low",
  recallHigh: "recall_high",
  precision: "precision",
  precisionLow: "precision_low",
  precisionHigh: "precision_high",
} as const;

/** Columns a calibration.tsv may lack (written since the report shows the sampling design): NaN when absent. */
const OPTIONAL_COLUMNS = {
  recallTrials: "recall_trials",
  precisionTrials: "precision_trials",
} as const;

const CALIBRATION_HEADER = [...Object.values(COLUMNS), ...Object.values(OPTIONAL_COLUMNS)].join("\t");

/** calibration.tsv: one row per threshold, 4 decimals (trials: 1), an empty field where nothing is known (no pair). */
export function calibrationTsv(rows: readonly CalibrationRow[]): string {
  const f = (x: number) => (Number.isNaN(x) ? "" : x.toFixed(4));
  const n = (x: number) => (x > 0 ? x.toFixed(1) : "");
  const lines = rows.map((r) =>
    [r.threshold.toFixed(2), f(r.recall.estimate), f(r.recall.low), f(r.recall.high), f(r.precision.estimate), f(r.precision.low), f(r.precision.high), n(r.recallTrials), n(r.precisionTrials)].join("\t"),
  );
  return [CALIBRATION_HEADER, ...lines].join("\n") + "\n";
}

/** Recall and precision of a run against an exact reference at one threshold, with 95 % intervals and their effective trials. */
export type CalibrationTableRow = Record<keyof typeof COLUMNS | keyof typeof OPTIONAL_COLUMNS, number>;

/** Most rows the report shows: a calibration sweeps thresholds, a few dozen at most. */
export const MAX_CALIBRATION_ROWS = 1000;

/**
 * calibration.tsv (a header naming at least the columns of COLUMNS, in any order, then one
 * row per threshold), or undefined when the file does not exist. An empty field (nothing
 * known: no pair counted) or an absent column of OPTIONAL_COLUMNS is NaN; a missing column, another value that is not a number or
 * too many rows is an error naming the file and line.
 */
export async function readCalibration(path: string): Promise<CalibrationTableRow[] | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if (errorCode(err) === "ENOENT") return undefined;
    throw err;
  }
  const lines = text.split("\n").filter((l) => l.length > 0);
  const header = (lines[0] ?? "").split("\t");
  const at = {} as Record<keyof CalibrationTableRow, number>;
  for (const [key, name] of Object.entries(COLUMNS) as [keyof typeof COLUMNS, string][]) {
    at[key] = header.indexOf(name);
    if (at[key] < 0) throw new VertdupError(`${path}:1: no column ${name} in the header (expected ${Object.values(COLUMNS).join(", ")})`);
  }
  for (const [key, name] of Object.entries(OPTIONAL_COLUMNS) as [keyof typeof OPTIONAL_COLUMNS, string][]) at[key] = header.indexOf(name);
  const names: Record<keyof CalibrationTableRow, string> = { ...COLUMNS, ...OPTIONAL_COLUMNS };
  if (lines.length - 1 > MAX_CALIBRATION_ROWS) throw new VertdupError(`${path}: ${lines.length - 1} rows, at most ${MAX_CALIBRATION_ROWS}`);
  return lines.slice(1).map((line, k) => {
    const fields = line.split("\t");
    const row = {} as CalibrationTableRow;
    for (const key of Object.keys(names) as (keyof CalibrationTableRow)[]) {
      const field = at[key] < 0 ? "" : fields[at[key]];
      const value = field === "" ? NaN : Number(field);
      if (field === undefined || (field !== "" && !Number.isFinite(value))) {
        throw new VertdupError(`${path}:${k + 2}: ${names[key]} is not a number: ${JSON.stringify((field ?? "").slice(0, 40))}`);
      }
      row[key] = value;
    }
    return row;
  });
}
