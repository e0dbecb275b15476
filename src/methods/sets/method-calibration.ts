import type { MethodRun, FeaturesConfig } from "./set-method.js";
import type { CalibrationManifest } from "../manifest.js";
import type { WorkerPool } from "../../executor/pool.js";
import { calibrate, calibrationLine, thresholdText, type CalibrationRequest } from "../lsh-cosine/calibrate-step.js";
import { CALIBRATION_THRESHOLDS, SIMHASH_CALIBRATION_THRESHOLDS } from "../../eval/calibration.js";
import { bandsForRecall, candidateProbability, type Banding } from "./lsh-bands.js";
import { setsFile } from "../minhash/minhash.js";
import type { ParagraphShard } from "../paragraph-sets/paragraph-sets.js";

import { sampleJaccardPairs, type SetSource } from "./sample-jaccard.js";
import type { ShardBase } from "./shard-scan.js";
import { readRunConfig } from "../../workdir/run-config.js";
import { readLimits } from "../../corpus/chunker.js";
import type { ScoredPairs } from "../../eval/pairs-file.js";
import { VertdupError } from "../../core/errors.js";

import { sampleTermCosinePairs } from "./sample-term-cosine.js";

/** The methods `calibrate` and `run --estimate-recall` calibrate besides lsh-cosine: a Jaccard of sets, or simhash384's cosine of token counts. */
export type CalibratedSetMethod = "minhash" | "paragraphs" | "simhash384";

export function isCalibrated(run: MethodRun): run is MethodRun & { method: CalibratedSetMethod } {
  return run.method === "minhash" || run.method === "paragraphs" || run.method === "simhash384";
}

/**
 * simhash384's exact reference: the cosine of the token-count vectors it hashes, from the
 * corpus read again (the method keeps only the hashes). The inputs must be read again and
 * hold every document: not standard input, not an --against index's documents.
 */
async function termCosines(run: MethodRun, workdir: string, pool: WorkerPool): Promise<(sampled: Uint8Array) => Promise<ScoredPairs>> {
  if ((run.against ?? []).length > 0) throw new VertdupError("--method simhash384 --estimate-recall cannot calibrate against an index (--against): its documents' tokens are not stored");
  const config = (await readRunConfig(workdir)) as unknown as FeaturesConfig;
  const inputs = config.inputs.map((i) => i.path);
  if (inputs.includes("-")) throw new VertdupError("--method simhash384 --estimate-recall reads the corpus again: give it as files, not standard input");
  const limits = readLimits(config.maxDocBytes, config.oversize);
  return (sampled) => sampleTermCosinePairs(inputs, config.chunkBytes, limits, run.features, sampled, SIMHASH_CALIBRATION_THRESHOLDS[0], pool);
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
  const measure = { minhash: "Jaccard of shingles", paragraphs: "Jaccard of long paragraphs", simhash384: "cosine of the token-count vectors" }[run.method];
  let referenceOf: (sampled: Uint8Array) => Promise<ScoredPairs>;
  if (run.method === "simhash384") referenceOf = await termCosines(run, workdir, pool);
  else {
    const sources = setSources(run, shards, workdir);
    referenceOf = (sampled) => sampleJaccardPairs(sources, sampled, CALIBRATION_THRESHOLDS[0], pool);
  }
  const thresholds = run.method === "simhash384" ? SIMHASH_CALIBRATION_THRESHOLDS : CALIBRATION_THRESHOLDS;
  const calibration = await calibrate(outdir, documents, run.features.seed, request, referenceOf, measure, thresholds);
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
  if (run.method === "simhash384") {
    // A pair within --max-distance k of 384 bits has Hamming similarity ≥ 1 − k/384 ≈ 1 − θ/π: cosine ≥ cos(πk/384).
    const k = run.search.maxDistance;
    banding = `; --max-distance ${k} aims at pairs of cosine ≥ cos(π·${k}/384) = ${Math.cos((Math.PI * k) / 384).toFixed(4)}`;
  }
  const seconds = (performance.now() - t0) / 1000;
  const name = run.method === "simhash384" ? "cosine" : "Jaccard";
  return { calibration, summary: `${calibrationLine(outdir, calibration, name, seconds, thresholds[0])}\n${thresholdText(calibration, name, thresholds[0])}${banding}` };
}
