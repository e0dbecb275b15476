import type { FeatureOptions, KeepPolicy, MethodName, SearchOptions } from "../../core/method-options.js";
import type { PairsOutput } from "../../core/options.js";
import type { RunConfig } from "../../workdir/run-config.js";
import type { CalibrationRequest } from "../lsh-cosine/calibrate-step.js";

export type SetMethod = Exclude<MethodName, "lsh-cosine">;

export interface MethodRun {
  method: SetMethod;
  features: FeatureOptions;
  search: SearchOptions;
  keep: KeepPolicy;
  /** pairs.tsv: edges (the default) or every document pair. */
  pairs?: PairsOutput;
  /** Write report.html (default); `--no-report` skips it. */
  report?: boolean;
  /** `calibrate`, `--estimate-recall`: calibration.tsv after the outputs (minhash and paragraphs only). */
  calibrate?: CalibrationRequest;
  /** Saved indices (`--against`) whose documents come before the inputs'. */
  against?: readonly string[];
  /** `--update`: append the inputs to the only `--against` index once the outputs are written. */
  update?: boolean;
  /** Leave the work directory as an index of the inputs (a `-w` the user keeps). */
  saveIndex?: boolean;
  /** `--resume`: keep the features of chunks an interrupted run in the same work directory finished. */
  resume?: boolean;
}

/** What a features step's files depend on (config.json): the method, its feature options and the chunking. */
export type FeaturesConfig = RunConfig<FeatureOptions & { method: string }>;
