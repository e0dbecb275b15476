import type { CalibrationSampling } from "../core/options.js";
import { CALIBRATION_THRESHOLDS, calibrationRows, recallHalfWidth, widestRecall, type CalibrationRow } from "./calibration.js";
import { sampleDocuments, sampleWithin } from "./document-sample.js";
import { joinScoredPairs, type ScoredPairs } from "./pairs-file.js";
import { drawStratified, growthAllocation, stratifiedDesign, type StratifiedDesign } from "./stratified-sample.js";

/** --max-width, --max-sample: how a calibration's sample grows (absent maxWidth: it does not). */
export interface SampleGrowth {
  /** Largest half-width of a recall interval: the sample grows until every threshold's is within it, or it holds `maxSample`. */
  maxWidth?: number;
  maxSample?: number;
}

/** --max-sample's default: ten times --sample. */
export const MAX_SAMPLE_FACTOR = 10;

export interface GrownCalibration {
  rows: CalibrationRow[];
  sampled: Uint8Array;
  /** Stratified: the design, its `drawn` the documents drawn from each stratum in all batches. */
  design?: StratifiedDesign;
  reference: ScoredPairs;
  /** Documents sampled after each batch (the first: --sample). */
  batches: number[];
  maxSample: number;
  /** Thresholds with pairs counted whose recall interval is within ±maxWidth (empty without it). */
  withinWidth: number[];
}

/** The pairs of `extra` (a new batch's reference) but those with a document of an earlier batch (`taken`): its reference holds them. */
function newPairs(extra: ScoredPairs, taken: Uint8Array): ScoredPairs {
  const keep = [...extra.a.keys()].filter((k) => taken[extra.a[k]] === 0 && taken[extra.b[k]] === 0);
  return { a: Uint32Array.from(keep, (k) => extra.a[k]), b: Uint32Array.from(keep, (k) => extra.b[k]), similarity: Float64Array.from(keep, (k) => extra.similarity[k]) };
}

/**
 * calibration.tsv's rows on a seeded sample of `size` documents (README "Calibrating"):
 * uniform, or stratified by the run's clusters (`clusterOf`, 0: alone), their exact reference
 * from `referenceOf` (every pair with a flagged document at exact similarity ≥ the smallest
 * of `thresholds`, once). With `maxWidth` the sample grows in batches, each as large as the sample
 * so far (up to `maxSample`), while a threshold's recall interval is wider than ±maxWidth
 * (thresholds without any pair counted have none, and do not count):
 * batch k draws from the documents not drawn yet (growthAllocation; generator streams of
 * batch k), so the whole is a pure function of the seed, and only the new documents'
 * reference is computed. Each batch is a uniform draw from each stratum's rest, so the union
 * is a stratified sample with the final n_h, estimated as one (stratifiedRatio).
 */
export async function growingCalibration(clusterOf: Uint32Array, seed: number, request: SampleGrowth & { sample: number }, sampling: CalibrationSampling, referenceOf: (sampled: Uint8Array) => Promise<ScoredPairs> | ScoredPairs, thresholds: readonly number[] = CALIBRATION_THRESHOLDS): Promise<GrownCalibration> {
  const documents = clusterOf.length;
  const design = sampling === "uniform" ? undefined : stratifiedDesign(clusterOf, request.sample);
  const sampled = design === undefined ? sampleDocuments(documents, request.sample, seed) : drawStratified(design, seed);
  let reference = await referenceOf(sampled);
  const measure = () => calibrationRows(reference, clusterOf, sampled, thresholds, design);
  let rows = measure();
  let count = 0;
  for (const s of sampled) count += s;
  const batches = [count];
  const { maxWidth } = request;
  const maxSample = Math.min(documents, request.maxSample ?? MAX_SAMPLE_FACTOR * request.sample);
  // A threshold without any pair counted has no interval to narrow (the corpus may have none).
  const within = (r: CalibrationRow) => maxWidth !== undefined && !(recallHalfWidth(r) > maxWidth);
  while (maxWidth !== undefined && !rows.every(within) && count < maxSample) {
    const size = Math.min(count, maxSample - count);
    const widest = rows.find((r) => recallHalfWidth(r) === widestRecall(rows))!;
    const stratumOf = design?.stratumOf ?? new Uint8Array(documents);
    const sizes = design === undefined ? Float64Array.of(size) : growthAllocation(design, widest.recallSpread ?? new Float64Array(design.population.length), size);
    const more = sampleWithin(stratumOf, sizes, seed, sampled, batches.length);
    reference = joinScoredPairs([reference, newPairs(await referenceOf(more), sampled)]);
    for (let d = 0; d < documents; d++) {
      if (more[d] === 0) continue;
      sampled[d] = 1;
      count++;
      if (design !== undefined) design.drawn[design.stratumOf[d]]++;
    }
    batches.push(count);
    rows = measure();
  }
  return { rows, sampled, design, reference, batches, maxSample, withinWidth: rows.filter((r) => !Number.isNaN(r.recall.estimate) && within(r)).map((r) => r.threshold) };
}
