import type { DuplicateGraph } from "../../clusters/duplicate-graph.js";
import type { FeatureOptions, KeepPolicy, MethodName, SearchOptions } from "../../core/method-options.js";
import type { PairsOutput } from "../../core/options.js";
import type { ScoredPairs } from "../../eval/pairs-file.js";
import type { TaskPool } from "../../executor/in-process-pool.js";
import type { FeaturesTask, MethodsTasks } from "./methods-entry.js";
import type { KernelStatus } from "../../util/wasm-kernel.js";
import type { RunConfig } from "../../workdir/run-config.js";
import type { CalibrationRequest } from "../lsh-cosine/calibrate-step.js";
import type { CalibrationManifest } from "../manifest.js";
import type { KnownEdges } from "../minhash/search.js";
import type { ShardBase } from "./shard-scan.js";

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
  /** `calibrate`, `--estimate-recall`: calibration.tsv after the outputs (the methods with a `calibration`). */
  calibrate?: CalibrationRequest;
  /** Saved indices (`--against`) whose documents come before the inputs'. */
  against?: readonly string[];
  /** `--update`: append the inputs to the only `--against` index once the outputs are written. */
  update?: boolean;
  /** Leave the work directory as an index of the inputs (a `-w` the user keeps). */
  saveIndex?: boolean;
  /** `--resume`: keep what an interrupted run in the same work directory finished. */
  resume?: boolean;
}

/** What a features step's files depend on (config.json): the method's chunk task, its feature options and the chunking. */
export type FeaturesConfig = RunConfig<FeatureOptions & { method: FeaturesTask }>;

/** What a search found: the duplicate graph and its counts for the manifest. */
export interface Found {
  graph: Omit<DuplicateGraph, "cosines">;
  candidates: number;
  /** Candidates verified (minhash with `known` edges: the others were answered by an index). */
  verified?: number;
  /** minhash: shared-memory blocks the candidates' sets were verified in. */
  verifyBlocks?: number;
}

/** Where a search runs: the work directory it may write scratch files to, the pool, and the indices' known edges. */
export interface SearchPlace {
  workdir: string;
  pool: TaskPool<MethodsTasks>;
  /** With `--against`, for a method whose index keeps its edges (`keepsEdges`). */
  known?: KnownEdges;
  /** `--partition-attr`: each document's partition; identity groups and candidates stay within one. */
  part?: Uint32Array;
}

/** A method's calibration (README "Calibrating"): its exact reference on a sample, and its advice. */
export interface SetCalibration<S extends ShardBase> {
  /** What the reference measures (the manifest's `calibration.similarity`), and its short name in the summary. */
  measure: string;
  name: string;
  /** The exact-similarity thresholds of calibration.tsv. */
  thresholds: readonly number[];
  /** The exact reference of sampled documents: every pair with a sampled document at similarity ≥ `thresholds[0]`. */
  reference(shards: readonly S[], run: MethodRun, workdir: string, pool: TaskPool<MethodsTasks>): Promise<(sampled: Uint8Array) => Promise<ScoredPairs>>;
  /** What the method adds to the summary's last line (and to `calibration`): how its own parameter reaches the target. */
  advice?(run: MethodRun, request: CalibrationRequest, calibration: CalibrationManifest): string;
}

/**
 * A set method (every method but lsh-cosine): what the steps of its pipeline (pipeline.ts)
 * ask of it. Each method declares one, in its own folder; set-methods.ts lists them.
 */
export interface SetMethodSpec<S extends ShardBase = ShardBase> {
  /** minhash: its LSH bands × rows, as given or derived from the threshold (`--bands`, `--rows`). */
  banding?(threshold: number, numPerm: number, bands?: number, rows?: number): { bands: number; rows: number };
  /** manifest.json's `similarity`: what pairs.tsv's similarity column measures. */
  similarity: string;
  /**
   * The features step: the chunk task (workers/methods.ts) that makes a chunk's shard, what a
   * document's features are made of and the options deciding it (said of documents without any).
   */
  features: { task: FeaturesTask; of: string; decidedBy: string };
  /** Documents of `shards` without any feature. */
  emptyDocuments(shards: readonly S[]): number;
  /** What runs the WebAssembly kernels of its chunk task, for the manifest (a fallback is told through `warn`). */
  kernels?(features: FeatureOptions, warn: (message: string) => void): Record<string, KernelStatus>;
  /**
   * The options that decide its features, by command-line name: an index and a batch compared
   * with it must agree on them (search options such as --threshold may differ).
   */
  indexOptions(features: FeatureOptions): Record<string, unknown>;
  /** Its index keeps the verified edges among its documents, which answer for candidates inside it (KnownEdges). */
  keepsEdges?: true;
  /** Candidates from the features, verified: the duplicate graph of `documents` documents. */
  search(shards: readonly S[], documents: number, run: MethodRun, place: SearchPlace): Promise<Found>;
  /** Absent: `calibrate` and `--estimate-recall` refuse the method. */
  calibration?: SetCalibration<S>;
}
