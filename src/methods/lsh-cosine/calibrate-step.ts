import type { CalibrationSampling } from "../../core/options.js";
import { join } from "node:path";
import { CLUSTERS_FILE, readClustersTsv } from "../../output/clusters-tsv.js";
import { CALIBRATION_FILE, CALIBRATION_THRESHOLDS, calibrationTsv, recommendedThreshold } from "../../eval/calibration.js";
import { growingCalibration, type SampleGrowth } from "../../eval/growing-sample.js";
import { withinPartitions, type ScoredPairs } from "../../eval/pairs-file.js";
import { loadDocParts } from "../../clusters/doc-table.js";
import { partitionNumbers } from "../../clusters/partitions.js";
import { sampleCosines } from "../../eval/exact/sample-cosine-pairs.js";
import { readManifest, writeManifest, type CalibrationManifest, type RunManifest } from "../manifest.js";
import { writeAtomic } from "../../util/atomic.js";
import { peakRssMiB } from "../../util/package-info.js";
import { WorkerPool } from "../../executor/pool.js";
import { readPrepareManifest } from "../../features/prepare-manifest.js";
import { writeReport, type ReportOptions } from "../../report/write-report.js";
import { REFERENCE_WORKERS } from "../../eval/exact/reference-entry.js";

/** What a calibration samples: `sample` documents, grown by --max-width up to `maxSample`. */
export interface CalibrationRequest extends SampleGrowth {
  sample: number;
  targetRecall: number;
  sampling: CalibrationSampling;
}

/**
 * The part of a calibration every method shares: a seeded sample of the run's documents (the
 * run's clusters.tsv in `outdir` gives the strata; grown by --max-width, growingCalibration),
 * the exact reference of the sampled documents (`referenceOf`: every pair with a flagged
 * document at exact similarity ≥ the smallest of `thresholds`, once) → calibration.tsv in
 * `outdir`, and the manifest's record.
 */
export async function calibrate(outdir: string, documents: number, seed: number, request: CalibrationRequest, referenceOf: (sampled: Uint8Array) => Promise<ScoredPairs>, similarity: string, thresholds: readonly number[] = CALIBRATION_THRESHOLDS): Promise<CalibrationManifest> {
  const clusterOf = (await readClustersTsv(join(outdir, CLUSTERS_FILE))).clusterOf(documents);
  const grown = await growingCalibration(clusterOf, seed, request, request.sampling, referenceOf, thresholds);
  const { rows, design, reference } = grown;
  await writeAtomic(join(outdir, CALIBRATION_FILE), calibrationTsv(rows));
  const sampledDocuments = grown.batches[grown.batches.length - 1];
  const strata = design === undefined ? {} : { strata: { documents: [...design.population], sampled: [...design.drawn] } };
  const growth = request.maxWidth === undefined ? {} : { growth: { maxWidth: request.maxWidth, maxSample: grown.maxSample, batches: grown.batches, withinWidth: grown.withinWidth } };
  return { similarity, sampling: design === undefined ? "uniform" : "stratified", sampledDocuments, ...strata, ...growth, referencePairs: reference.a.length, targetRecall: request.targetRecall, threshold: recommendedThreshold(rows, request.targetRecall) };
}

/** The summary's first line: what was sampled and found, and where the table is. */
export function calibrationLine(outdir: string, c: CalibrationManifest, measure: string, seconds: number, lowest = CALIBRATION_THRESHOLDS[0]): string {
  return `calibration: ${c.sampledDocuments} documents sampled, ${c.referencePairs} pairs with ${measure} ≥ ${lowest} in ${seconds.toFixed(1)} s → ${join(outdir, CALIBRATION_FILE)}`;
}

/** What the recommended threshold says, for the summary. */
export function thresholdText(c: CalibrationManifest, measure: string, lowest = CALIBRATION_THRESHOLDS[0]): string {
  const at = c.threshold === undefined ? `no ${measure} threshold ≥ ${lowest}` : `${measure} ≥ ${c.threshold.toFixed(2)}`;
  return `recall ≥ ${c.targetRecall} (95 % lower bound) for pairs at ${at}`;
}

/**
 * Calibrates a finished lsh-cosine run of a work directory (README "Calibrating"):
 * `recallSample` documents drawn with the run's seed (uniform: PLEB's estimate's), the exact
 * cosine of each sampled document with the whole corpus in one streaming pass, the run's
 * clusters.tsv → calibration.tsv, the recommendation in manifest.json, and a line for stderr;
 * then report.html when `report` is given (written last, so that it shows the calibration).
 */
export async function calibrateStep(workdir: string, outdir: string, request: Omit<CalibrationRequest, "sample">, workers: number, report?: Omit<ReportOptions, "seed">): Promise<string> {
  const { targetRecall } = request;
  const t0 = performance.now();
  const prepared = await readPrepareManifest(workdir);
  const manifest = await readManifest<RunManifest>(outdir);
  const documents = prepared.counts.documents;
  const pool = new WorkerPool(REFERENCE_WORKERS, workers);
  let calibration;
  try {
    const attr = prepared.options.partitionAttr;
    // A partitioned run is measured against the reference pairs within one partition, the only ones it may find.
    const part = attr === undefined ? undefined : partitionNumbers(loadDocParts(workdir, prepared.counts.shards), attr);
    const referenceOf = async (sampled: Uint8Array) => {
      const pairs = await sampleCosines(workdir, prepared, sampled, CALIBRATION_THRESHOLDS[0], pool);
      return part === undefined ? pairs : withinPartitions(pairs, part);
    };
    calibration = await calibrate(outdir, documents, manifest.pleb.seed, { ...request, sample: manifest.pleb.recallSample ?? documents }, referenceOf, `cosine of the ${prepared.options.weighting} vectors`);
  } finally {
    await pool.close();
  }
  calibration.iterations = manifest.recallEstimate?.byGroup.find((g) => g.low >= targetRecall)?.iteration;
  const seconds = (performance.now() - t0) / 1000;
  manifest.calibration = calibration;
  manifest.phases.calibrate = { seconds: Number(seconds.toFixed(3)), peakRssMiB: peakRssMiB() };
  await writeManifest(outdir, manifest);
  if (report !== undefined) await writeReport(outdir, { ...report, seed: manifest.pleb.seed });
  const iterations = calibration.iterations === undefined ? "not within the iterations run" : `after ${calibration.iterations} iterations`;
  return (
    `${calibrationLine(outdir, calibration, "cosine", seconds)}\n` +
    `${thresholdText(calibration, "cosine")}; PLEB's sampled recall at the Hamming threshold reached it ${iterations}`
  );
}
