import type { WorkerPool } from "../coordinator/pool.js";
import { calibrate, calibrationLine, thresholdText, type CalibrationManifest, type CalibrationRequest } from "../coordinator/steps/calibrate-step.js";
import { CALIBRATION_THRESHOLDS } from "../eval/calibration.js";
import { bandsForRecall, candidateProbability, type Banding } from "./lsh-bands.js";
import { setsFile } from "./minhash.js";
import type { ParagraphShard } from "./paragraphs.js";
import type { MethodRun } from "./run-method.js";
import { sampleJaccardPairs, type SetSource } from "./sample-jaccard.js";
import type { ShardBase } from "./shard-scan.js";

/** The methods `calibrate` and `run --estimate-recall` calibrate besides lsh-cosine: those whose similarity is a Jaccard of sets. */
export type CalibratedSetMethod = "minhash" | "paragraphs";

export function isCalibrated(run: MethodRun): run is MethodRun & { method: CalibratedSetMethod } {
  return run.method === "minhash" || run.method === "paragraphs";
}

/** Where the pool reads each shard's sets: minhash's sets files, or the paragraphs' long-paragraph sets. */
function setSources(run: MethodRun, shards: readonly ShardBase[], workdir: string): SetSource[] {
  if (run.method === "minhash") return shards.map((s, shard) => ({ firstDoc: s.firstDoc, file: setsFile(workdir, shard) }));
  return (shards as readonly ParagraphShard[]).map((s) => ({ firstDoc: s.firstDoc, sets: s.long }));
}

/**
 * Calibrates a finished minhash or paragraphs run (README "Calibrating"): a seeded sample of
 * `request.sample` documents, the exact Jaccard of each sampled set with every set of the
 * corpus (the method's own sets, on the pool), the run's clusters.tsv → calibration.tsv; for
 * minhash also the S-curve at the run's threshold of its banding and of the split of
 * --num-perm that reaches the target. Returns the manifest's record and two lines for stderr.
 */
export async function calibrateMethod(run: MethodRun & { method: CalibratedSetMethod }, shards: readonly ShardBase[], documents: number, workdir: string, outdir: string, pool: WorkerPool, request: CalibrationRequest): Promise<{ calibration: CalibrationManifest; summary: string }> {
  const t0 = performance.now();
  const sources = setSources(run, shards, workdir);
  const measure = run.method === "minhash" ? "Jaccard of shingles" : "Jaccard of long paragraphs";
  const calibration = await calibrate(outdir, documents, run.features.seed, request, (sampled) => sampleJaccardPairs(sources, sampled, CALIBRATION_THRESHOLDS[0], pool), measure);
  let banding = "";
  if (run.method === "minhash") {
    const { threshold } = run.search;
    const { bands, rows, numPerm } = run.features;
    const configured: Banding = { bands, rows, probability: candidateProbability(threshold, bands, rows) };
    const recommended = bandsForRecall(threshold, numPerm, request.targetRecall);
    calibration.banding = { threshold, configured, ...(recommended === undefined ? {} : { recommended }) };
    const split = (b: Banding) => `${b.bands} × ${b.rows} (S-curve ${b.probability.toFixed(4)})`;
    const advice = recommended === undefined ? `no split of --num-perm ${numPerm} reaches it` : `--bands ${recommended.bands} --rows ${recommended.rows} reaches it: ${split(recommended)}`;
    banding = `; at --threshold ${threshold} the run's bands × rows ${split(configured)}, ${advice}`;
  }
  const seconds = (performance.now() - t0) / 1000;
  return { calibration, summary: `${calibrationLine(outdir, calibration, "Jaccard", seconds)}\n${thresholdText(calibration, "Jaccard")}${banding}` };
}
