import type { AgainstScan } from "./lsh-cosine/against.js";
import { rm } from "node:fs/promises";
import { CALIBRATION_FILE } from "../eval/calibration.js";
import { join } from "node:path";
import type { PrepareManifest } from "../features/prepare-manifest.js";
import type { PhaseTiming } from "../executor/timing.js";
import type { PlebOptions, CalibrationSampling } from "../core/options.js";
import { writeAtomic } from "../util/atomic.js";
import type { Banding } from "./sets/lsh-bands.js";
import type { IterationRow } from "../pleb/pleb-log.js";
import type { ClusterCounts } from "../clusters/graph-clusters.js";
import type { RunWarnings } from "../corpus/run-warnings.js";
import type { KernelStatus } from "../util/wasm-kernel.js";
import type { FeatureOptions, MethodName, SearchOptions } from "../core/method-options.js";
import { OUTPUT_ADVICE, readJsonFile } from "../util/json-file.js";
import { vouchedFiles, type VouchedFile } from "../output/output-set.js";
import { PAIRS_FILE } from "../output/graph-outputs.js";
import { GROUPS_FILE } from "../output/groups-tsv.js";
import { CLUSTERS_FILE } from "../output/clusters-tsv.js";

/**
 * What manifest.json of every output directory holds, whatever the method: which method and
 * version made it from which inputs, what its similarity column means, its clusters, warnings,
 * kernels, timings and calibration. Each method adds its options (`prepare`, and `pleb` or
 * `search`) and its `counts`.
 */
export interface OutputManifest<Method extends string> {
  version: string;
  created: string;
  method: Method;
  /** What the similarity column of pairs.tsv measures. */
  similarity: string;
  inputs: string[];
  /** `--against`: the indices compared with, in order, and their documents. */
  against?: { index: string; documents: number }[];
  /** clusters.tsv: components of the pairs and the keep rule. */
  clusters?: ClusterCounts;
  warnings: RunWarnings;
  /** What ran each WebAssembly kernel's loop: "webassembly" or "typescript (why)". */
  kernels?: Record<string, KernelStatus>;
  phases: Record<string, PhaseTiming>;
  /** `calibrate`, `--estimate-recall`: recall against the exact similarity on a sample and what to choose. */
  calibration?: CalibrationManifest;
  /** The output files of this run, by name, with their size and SHA-256 (set by `writeManifest`): a reader checks that it reads this run's. */
  files?: Record<string, VouchedFile>;
}

/** manifest.json of an lsh-cosine output directory: how its pairs were made, and at what cost. */
export interface RunManifest extends OutputManifest<"lsh-cosine"> {
  similarity: "relative Hamming similarity of random-hyperplane signatures (estimates 1 - angle/pi)";
  /** `--against`: how PLEB searched (`new` only where the first index had links of the same search). */
  againstScan?: AgainstScan;
  prepare: PrepareManifest["options"];
  pleb: PlebOptions;
  counts: PrepareManifest["counts"] & {
    /** Document pairs sharing a signature (counted, never listed). */
    identicalSignaturePairs: number;
    /** Signature pairs kept: every pair found (`--pairs all`) or their spanning forest. */
    signaturePairs: number;
    /** groups.tsv: groups of identical signatures with ≥ 2 documents, and their documents. */
    groups: number;
    documentsInGroups: number;
    /** Lines of pairs.tsv. */
    pairs: number;
    /** Beam positions scanned (pairs skipped as already joined included); `againstScan: new`: at most 2·beam per signature with a new document per iteration. */
    comparisons: number;
    /** `--verify`: candidates checked against their exact cosine (a rejected pair each time it is found again), and rejected. */
    verifiedCandidates?: number;
    rejectedCandidates?: number;
  };
  /**
   * `--estimate-recall`/`--target-recall`: PLEB's sampled recall after each iteration group;
   * stratified, the strata (of the first group's clusters) as in `calibration.strata`.
   */
  recallEstimate?: { referencePairs: number; iterations: number; sampling: "stratified" | "uniform"; strata?: { documents: number[]; sampled: number[] }; byGroup: GroupEstimate[] };
}

/** manifest.json of an output directory made by a method other than lsh-cosine. */
export interface MethodManifest extends OutputManifest<Exclude<MethodName, "lsh-cosine">> {
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
}

/** The sampled recall of PLEB after the iterations up to `iteration` (0: identical signatures only). */
export interface GroupEstimate {
  iteration: number;
  recall: number;
  low: number;
  high: number;
}

/**
 * The files of an output directory its manifest names: not report.html (written after the
 * manifest from these, never read back), nor pleb-log.tsv (a log whose seconds would make the
 * manifest differ between runs of the same outputs).
 */
export const VOUCHED_FILES = [PAIRS_FILE, GROUPS_FILE, CLUSTERS_FILE, CALIBRATION_FILE];

/**
 * Writes manifest.json into `outdir`, atomically, after the other outputs: it names their
 * sizes and checksums, so that a reader can tell this run's set from a mix. A manifest without
 * calibration is the output step's (a calibrating run adds it later): a calibration.tsv
 * already there is then an earlier run's, removed so that it is not taken for this run's
 * (report.html, a reader).
 */
export async function writeManifest(outdir: string, manifest: OutputManifest<string>): Promise<void> {
  if (manifest.calibration === undefined) await rm(join(outdir, CALIBRATION_FILE), { force: true });
  const files = await vouchedFiles(outdir, VOUCHED_FILES);
  await writeAtomic(join(outdir, "manifest.json"), JSON.stringify({ ...manifest, files }, null, 2) + "\n");
}

/**
 * pleb-log.tsv, counting `pairs` (new_pairs, total_pairs) or `links` (new_links,
 * total_links); with a reference (rows carry `recall`) a last column `recall` (fraction, 4
 * decimals); with a sample (rows of whole iteration groups carry `estimate`) the estimated
 * recall and its 95 % interval, empty on the other rows.
 */
export async function writePlebLog(outdir: string, rows: readonly IterationRow[], counted: "pairs" | "links"): Promise<void> {
  const withRecall = rows.length > 0 && rows[0].recall !== undefined;
  const withEstimate = rows.some((r) => r.estimate !== undefined);
  const decimal = (x: number) => (Number.isNaN(x) ? "" : x.toFixed(4));
  const estimate = (r: IterationRow) => (r.estimate === undefined ? "\t\t\t" : `\t${decimal(r.estimate.estimate)}\t${decimal(r.estimate.low)}\t${decimal(r.estimate.high)}`);
  const lines = rows.map(
    (r) =>
      `${r.iteration}\t${r.fresh}\t${r.total}\t${r.seconds.toFixed(3)}` + (withRecall ? `\t${(r.recall ?? 0).toFixed(4)}` : "") + (withEstimate ? estimate(r) : ""),
  );
  const header =
    `iteration\tnew_${counted}\ttotal_${counted}\tseconds` + (withRecall ? "\trecall" : "") + (withEstimate ? "\trecall_estimate\trecall_low\trecall_high" : "");
  await writeAtomic(join(outdir, "pleb-log.tsv"), [header, ...lines].join("\n") + "\n");
}

/** What `calibrate` and `run --estimate-recall` add to manifest.json. */
export interface CalibrationManifest {
  similarity: string;
  sampling: CalibrationSampling;
  sampledDocuments: number;
  /** Stratified: documents in each stratum and drawn from it (alone; clusters of 2, 3–4, 5–8, 9–16, ≥ 17). */
  strata?: { documents: number[]; sampled: number[] };
  /**
   * --max-width: the recall intervals' largest half-width asked for, the documents sampled
   * after each batch of the growing sample, and the thresholds whose interval is within it.
   */
  growth?: { maxWidth: number; maxSample: number; batches: number[]; withinWidth: number[] };
  /** Pairs with a sampled document at exact similarity ≥ the smallest threshold. */
  referencePairs: number;
  targetRecall: number;
  /** Smallest threshold whose recall's lower bound reaches the target (absent: none). */
  threshold?: number;
  /** First iteration after which PLEB's sampled recall's lower bound reached the target. */
  iterations?: number;
  /** minhash: the S-curve at the run's threshold of its bands × rows, and of the split that reaches the target there (absent: none does). */
  banding?: { threshold: number; configured: Banding; recommended?: Banding };
}

/** The manifest.json of a finished run in `outdir`. */
export async function readManifest<M extends OutputManifest<string>>(outdir: string): Promise<M> {
  return readJsonFile<M>(join(outdir, "manifest.json"), OUTPUT_ADVICE);
}

/** Where the pairs are and a one-line summary of an lsh-cosine run. */
export function runSummary(outdir: string, m: RunManifest): string {
  const c = m.counts;
  const seconds = Object.values(m.phases).reduce((s, p) => s + p.seconds, 0);
  return (
    `pairs: ${join(outdir, "pairs.tsv")}, clusters: ${join(outdir, "clusters.tsv")}\n` +
    `${c.documents} documents, ${c.tokens} tokens, ${c.distinctSignatures} distinct signatures → ` +
    `${c.pairs} pairs ${m.pleb.cosineThreshold === undefined ? `≥ ${m.pleb.threshold}` : `at cosine ≥ ${m.pleb.cosineThreshold} (candidates ≥ ${m.pleb.threshold.toFixed(4)})`} (--pairs ${m.pleb.pairs}), ${m.clusters?.clusters ?? 0} clusters, ` +
    `${m.clusters?.duplicates ?? 0} duplicates in ${seconds.toFixed(1)} s`
  );
}

/** The same for a run of a set method. */
export function methodSummary(outdir: string, m: MethodManifest): string {
  const c = m.counts;
  const seconds = Object.values(m.phases).reduce((s, p) => s + p.seconds, 0);
  return (
    `pairs: ${join(outdir, "pairs.tsv")}, clusters: ${join(outdir, "clusters.tsv")}\n` +
    `${m.method}: ${c.documents} documents, ${c.tokens} tokens, ${c.candidates} candidates → ` +
    `${c.pairs} pairs, ${m.clusters.clusters} clusters, ${m.clusters.duplicates} duplicates in ${seconds.toFixed(1)} s`
  );
}
