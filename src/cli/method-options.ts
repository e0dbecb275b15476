import { pairsOutputFrom, plebOptionsFrom, prepareOptionsFrom, sampleGrowthFrom } from "./options.js";
import type { CalibrationSampling, ExecutionOptions, Normalization, PairsOutput, PrepareOptions } from "../core/options.js";
import { parseSize } from "../util/size.js";
import type { KeepPolicy, MethodName } from "../core/method-options.js";
import { METHODS, type RunRequest } from "../methods/method.js";

/** `--keep`, or its default: the older document when there are --against indices, else the longest. */
export function keepPolicy(keep: KeepPolicy | undefined, against: readonly string[]): KeepPolicy {
  return keep ?? (against.length > 0 ? "older" : "longest");
}

/** Parsed options with the method's threshold and shingle size where not given. */
export function withMethodDefaults<A extends { method: MethodName; threshold?: number; "shingle-size"?: number }>(a: A): A & { threshold: number; "shingle-size": number } {
  const { threshold, shingleSize } = METHODS[a.method].defaults;
  return { ...a, threshold: a.threshold ?? threshold, "shingle-size": a["shingle-size"] ?? shingleSize };
}

interface ParsedFeatures {
  "shingle-size": number;
  "num-perm": number;
  bands?: number;
  rows?: number;
  "short-tokens": number;
  column: number;
  "id-attr": string;
  "partition-attr"?: string;
  normalize: Normalization;
  lowercase: boolean;
  "keep-numbers": boolean;
  seed: number;
}

/** The set methods' feature options from parsed ones (`--bands` and `--rows` as given). */
export function featuresFrom(a: ParsedFeatures): RunRequest["features"] {
  return {
    column: a.column,
    idAttr: a["id-attr"],
    ...(a["partition-attr"] === undefined ? {} : { partitionAttr: a["partition-attr"] }),
    normalize: a.normalize,
    lowercase: a.lowercase,
    keepNumbers: a["keep-numbers"],
    shingleSize: a["shingle-size"],
    numPerm: a["num-perm"],
    bands: a.bands,
    rows: a.rows,
    seed: a.seed,
    shortTokens: a["short-tokens"],
  };
}

/** The parsed options of a run: `--threshold` and `--shingle-size` as given (their defaults are the method's). */
type ParsedRun = Omit<ParsedFeatures & Parameters<typeof prepareOptionsFrom>[0] & Parameters<typeof plebOptionsFrom>[0], "threshold" | "shingle-size"> & {
    method: MethodName;
    threshold?: number;
    "shingle-size"?: number;
    "max-distance": number;
    memory: string;
    keep?: KeepPolicy;
    pairs: PairsOutput["mode"];
    "pairs-limit": number;
    against?: string[];
    "against-scan": "new" | "full";
    update: boolean;
    sample: number;
    sampling: CalibrationSampling;
    "max-width"?: number;
    "max-sample"?: number;
  };

/** What the command adds to its parsed options: where the run goes, and how it is run. */
interface RunPlace {
  inputs: string[];
  outdir: string;
  against: string[];
  report: boolean;
  resume: boolean;
  saveIndex: boolean;
  /** The recall to calibrate for (`--estimate-recall`, `calibrate`); absent: no calibration. */
  calibrateTo?: number;
  tasks: number;
  exec: Omit<ExecutionOptions, "workers" | "quiet" | "tmpDir">;
}

/** The run `run`, `calibrate` and `slurm run` ask for, whatever the method (methods/method.ts). */
export function runRequestFrom(given: ParsedRun, place: RunPlace): RunRequest {
  const a = withMethodDefaults(given);
  const prepare: PrepareOptions = prepareOptionsFrom(a);
  return {
    method: a.method,
    inputs: place.inputs,
    outdir: place.outdir,
    prepare,
    // PLEB derives its threshold from --cosine-threshold when --threshold is not given.
    pleb: plebOptionsFrom({ ...a, threshold: given.threshold }, a.bits),
    features: featuresFrom(a),
    search: { threshold: a.threshold, maxDistance: a["max-distance"], memory: parseSize(a.memory, "memory") },
    keep: keepPolicy(a.keep, place.against),
    pairs: pairsOutputFrom(a),
    report: place.report,
    resume: place.resume,
    against: place.against,
    againstScan: a["against-scan"],
    update: a.update,
    saveIndex: place.saveIndex,
    ...(place.calibrateTo === undefined ? {} : { calibrate: { sample: a.sample, targetRecall: place.calibrateTo, sampling: a.sampling, ...sampleGrowthFrom(a) } }),
    tasks: place.tasks,
    exec: place.exec,
  };
}
