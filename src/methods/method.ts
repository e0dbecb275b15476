import { VertdupError } from "../core/errors.js";
import { METHOD_DEFAULTS, METHOD_NAMES, type FeatureOptions, type KeepPolicy, type MethodName, type SearchOptions } from "../core/method-options.js";
import { DEFAULT_PLEB, DEFAULT_PREPARE, type CalibrationSampling, type ExecutionOptions, type PairsOutput, type PlebOptions, type PrepareOptions } from "../core/options.js";
import type { Pipeline } from "../executor/pipeline.js";

/**
 * What vertdup knows of a method before loading it: the options it takes, its defaults and
 * whether it can be calibrated. The CLI's option checks and `--help` groups come from here
 * (cli/options.ts); what it runs is its `MethodRunner` (registry.ts), loaded when it runs.
 */
export interface MethodEntry {
  /** The run's options it uses beyond those every method takes: a run of another method refuses them. */
  options: readonly string[];
  /** Its `--threshold` and `--shingle-size` when not given. */
  defaults: { threshold: number; shingleSize: number };
  /** Why `calibrate` and `--estimate-recall` refuse it; absent: it is calibrated. */
  uncalibrated?: string;
  /** `--target-recall` ends its search (PLEB's iterations) rather than only choosing what to recommend. */
  searchStopsAtRecall?: true;
}

/** The options of a recall estimate (`calibrate`, `--estimate-recall`): a calibrated method's. */
const CALIBRATION_OPTIONS = ["seed", "sample", "sampling", "max-width", "max-sample", "target-recall"];

/** The methods of `vertdup run --method`, in the order of METHOD_NAMES. */
export const METHODS: Readonly<Record<MethodName, MethodEntry>> = {
  "lsh-cosine": {
    options: ["shingle-size", "bits", "weighting", "projection", "min-df", "max-df", "threshold", "beam", "shift-count", "iterations", "verify", "cosine-threshold", "iterations-per-group", "memory", "against-scan", ...CALIBRATION_OPTIONS],
    defaults: { threshold: DEFAULT_PLEB.threshold, shingleSize: DEFAULT_PREPARE.shingleSize },
    searchStopsAtRecall: true,
  },
  minhash: {
    options: ["shingle-size", "threshold", "num-perm", "bands", "rows", "memory", ...CALIBRATION_OPTIONS],
    defaults: { threshold: METHOD_DEFAULTS.minhash.threshold, shingleSize: METHOD_DEFAULTS.minhash.shingleSize },
  },
  paragraphs: {
    options: ["threshold", "short-tokens", ...CALIBRATION_OPTIONS],
    defaults: { threshold: METHOD_DEFAULTS.paragraphs.threshold, shingleSize: DEFAULT_PREPARE.shingleSize },
  },
  simhash384: {
    options: ["max-distance", ...CALIBRATION_OPTIONS],
    defaults: { threshold: DEFAULT_PLEB.threshold, shingleSize: DEFAULT_PREPARE.shingleSize },
  },
  exact: {
    options: [],
    defaults: { threshold: DEFAULT_PLEB.threshold, shingleSize: DEFAULT_PREPARE.shingleSize },
    uncalibrated: "it pairs exactly the documents with identical normalised token streams (recall and precision 1 by construction)",
  },
};

/** The methods that use `option`; undefined when every method takes it (no method declares it). */
export function methodsUsing(option: string): MethodName[] | undefined {
  const using = METHOD_NAMES.filter((m) => METHODS[m].options.includes(option));
  return using.length === 0 ? undefined : using;
}

/** The methods `calibrate` and `--estimate-recall` calibrate. */
export const CALIBRATED_METHODS: readonly MethodName[] = METHOD_NAMES.filter((m) => METHODS[m].uncalibrated === undefined);

/** Refuses a method `calibrate` and `--estimate-recall` cannot calibrate, saying why. */
export function refuseUncalibrated(method: MethodName): void {
  const why = METHODS[method].uncalibrated;
  if (why !== undefined) throw new VertdupError(`--method ${method} needs no calibration: ${why}`);
}

/**
 * A run as the command line asks for it (`run`, `calibrate`, `slurm run`), whatever the
 * method: each method's runner takes from it what its pipeline needs.
 */
export interface RunRequest {
  method: MethodName;
  inputs: string[];
  outdir: string;
  /** lsh-cosine: reading, terms and signatures. */
  prepare: PrepareOptions;
  /** lsh-cosine: PLEB. */
  pleb: PlebOptions;
  /** The set methods: their features, with `--bands` and `--rows` as given (the method derives them). */
  features: Omit<FeatureOptions, "bands" | "rows"> & { bands?: number; rows?: number };
  search: SearchOptions;
  keep: KeepPolicy;
  pairs: PairsOutput;
  /** report.html. */
  report: boolean;
  resume: boolean;
  against: string[];
  againstScan: "new" | "full";
  update: boolean;
  /** Leave the work directory as an index of the inputs. */
  saveIndex: boolean;
  /** `--estimate-recall`, `calibrate`: the recall estimate after the outputs. */
  calibrate?: { sample: number; targetRecall: number; sampling: CalibrationSampling; maxWidth?: number; maxSample?: number };
  /** Array size of the reading steps on Slurm. */
  tasks: number;
  exec: Omit<ExecutionOptions, "workers" | "quiet" | "tmpDir">;
}

/**
 * What runs a method (or a family of methods sharing one pipeline): the settings of its
 * pipeline from a request, stored at a Slurm submission so that every job builds the same
 * pipeline, and what a finished run says.
 */
export interface MethodRunner<S> {
  settings(request: RunRequest): S;
  pipeline(workdir: string, settings: S): Pipeline;
  /**
   * Refusals and the `--against` indices' compatibility, said before any work. At a Slurm
   * submission into `submittedTo` in full, since its jobs read the indices again only under
   * their locks; a local run (no `submittedTo`) checks the indices as it reads them.
   */
  check(settings: S, submittedTo?: string): Promise<void>;
  /** The run's manifest.json in `outdir` and its summary lines. */
  finished(outdir: string): Promise<{ manifest: unknown; summary: string }>;
}
