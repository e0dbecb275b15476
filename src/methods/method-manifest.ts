import { join } from "node:path";
import type { PhaseTiming } from "../executor/timing.js";
import type { ClusterCounts } from "../clusters/graph-clusters.js";
import type { RunWarnings } from "../output/run-warnings.js";
import { writeAtomic } from "../util/atomic.js";
import type { CalibrationManifest } from "../coordinator/steps/calibrate-step.js";
import type { KernelStatus } from "../util/wasm-kernel.js";
import type { FeatureOptions, MethodName, SearchOptions } from "./method-options.js";

/** manifest.json of an output directory made by a method other than lsh-cosine. */
export interface MethodManifest {
  version: string;
  created: string;
  method: Exclude<MethodName, "lsh-cosine">;
  /** What the similarity column of pairs.tsv measures. */
  similarity: string;
  inputs: string[];
  /** `--against`: the indices compared with, in order, and their documents (counts.documents includes them). */
  against?: { index: string; documents: number }[];
  /** Reader and feature options; `prepare.idAttr` names the documents (read by `clean`). */
  prepare: FeatureOptions;
  search: SearchOptions;
  counts: {
    shards: number;
    documents: number;
    tokens: number;
    /** Documents without any feature (no kept token, no paragraph): never paired. */
    emptyDocuments: number;
    candidates: number;
    /** minhash with --against: candidates verified; the others were pairs inside an index, answered by its edges. */
    verifiedCandidates?: number;
    /** minhash: shared-memory blocks the candidates' sets were verified in (1 when they fit --memory / 2). */
    verifyBlocks?: number;
    /** Identity groups of two or more documents (groups.tsv) and the documents in them. */
    groups: number;
    documentsInGroups: number;
    /** Edges between group leaders: pairs of distinct features found similar. */
    edges: number;
    /** Lines of pairs.tsv (the edges, or with --pairs all every document pair). */
    pairs: number;
  };
  clusters: ClusterCounts;
  warnings: RunWarnings;
  /** What ran each WebAssembly kernel's loop (minhash): "webassembly" or "typescript (why)" (README "Development": how much slower). */
  kernels?: Record<string, KernelStatus>;
  /** `calibrate`, `--estimate-recall`: recall against the exact Jaccard on a sample and what to choose. */
  calibration?: CalibrationManifest;
  phases: Record<string, PhaseTiming>;
}

export async function writeMethodManifest(outdir: string, manifest: MethodManifest): Promise<void> {
  await writeAtomic(join(outdir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
}
