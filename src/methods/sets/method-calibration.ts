import { partitionNumbers } from "../../clusters/partitions.js";
import { withinPartitions } from "../../eval/pairs-file.js";
import type { TaskPool } from "../../executor/in-process-pool.js";
import type { MethodsTasks } from "./methods-entry.js";
import { calibrate, calibrationLine, thresholdText, type CalibrationRequest } from "../lsh-cosine/calibrate-step.js";
import type { CalibrationManifest } from "../manifest.js";
import type { MethodRun, SetCalibration } from "./set-method.js";
import type { ShardBase } from "./shard-scan.js";

/**
 * Calibrates a finished run of a set method (README "Calibrating"): a seeded sample of
 * `request.sample` documents, the method's exact reference of each sampled document with
 * every document of the corpus (on the pool), the run's clusters.tsv → calibration.tsv, and
 * the method's advice (minhash: the S-curve of its banding and of the split of --num-perm
 * that reaches the target). Returns the manifest's record and two lines for stderr.
 */
export async function calibrateMethod(
  method: SetCalibration<ShardBase>,
  run: MethodRun,
  shards: readonly ShardBase[],
  documents: number,
  workdir: string,
  outdir: string,
  pool: TaskPool<MethodsTasks>,
  request: CalibrationRequest,
): Promise<{ calibration: CalibrationManifest; summary: string }> {
  const t0 = performance.now();
  const reference = await method.reference(shards, run, workdir, pool);
  // A partitioned run is measured against the reference pairs within one partition, the only ones it may find.
  const attr = run.features.partitionAttr;
  const part = attr === undefined ? undefined : partitionNumbers(shards.map((s) => s.parts), attr);
  const referenceOf = part === undefined ? reference : async (sampled: Uint8Array) => withinPartitions(await reference(sampled), part);
  const calibration = await calibrate(outdir, documents, run.features.seed, request, referenceOf, method.measure, method.thresholds);
  const advice = method.advice?.(run, request, calibration) ?? "";
  const seconds = (performance.now() - t0) / 1000;
  const lowest = method.thresholds[0];
  return { calibration, summary: `${calibrationLine(outdir, calibration, method.name, seconds, lowest)}\n${thresholdText(calibration, method.name, lowest)}${advice}` };
}
