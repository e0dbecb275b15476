import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { chunkCorpus, noSkippedDocs, noteSkipped, readLimits, type SkippedDocs } from "../corpus/chunker.js";
import { checkReadable, displayName } from "../corpus/open-input.js";
import { addWarnings, emptyWarnings } from "../corpus/vertical.js";
import { PhaseClock } from "../coordinator/phase-clock.js";
import { WorkerPool } from "../coordinator/pool.js";
import type { Reporter } from "../coordinator/progress.js";
import { DocIds } from "../output/doc-ids.js";
import { writeGraphOutputs } from "../output/graph-outputs.js";
import { emptyDocumentsWarning, runWarnings, skippedDocumentsWarning } from "../output/run-warnings.js";
import { DEFAULT_CHUNK_BYTES, DEFAULT_PAIRS, type ExecutionOptions, type PairsOutput } from "../options.js";
import { VertdupError } from "../util/errors.js";
import { ensureWritableDir } from "../util/output-dir.js";
import { packageVersion } from "../util/package-info.js";
import { exactGraph, type ExactShard } from "./exact.js";
import { writeMethodManifest, type MethodManifest } from "./method-manifest.js";
import type { FeatureOptions, KeepPolicy, MethodName, SearchOptions } from "./method-options.js";
import type { MinhashShard } from "./minhash.js";
import { minhashGraph } from "./minhash-search.js";
import { minhashKernelStatus } from "./minhash-wasm.js";
import { paragraphGraph, type ParagraphShard } from "./paragraphs.js";
import type { ChunkTask, ShardBase } from "./shard-scan.js";
import { concatU32 } from "../util/typed-arrays.js";
import { simhashGraph, type SimhashShard } from "./simhash384.js";
import { writeReport } from "../report/write-report.js";
import { refuseUncalibrated } from "../eval/calibration.js";
import { calibrateMethod, isCalibrated, type CalibrationRequest } from "./method-calibration.js";

export type SetMethod = Exclude<MethodName, "lsh-cosine">;

export const SIMILARITY: Record<SetMethod, string> = {
  exact: "1 for documents with identical normalised token streams (SHA-256)",
  simhash384: "1 - differing bits / 384 of 384-bit simhashes of SHA-384 token hashes (pairs with at most max-distance differing bits)",
  minhash: "exact Jaccard resemblance of word k-shingle sets (candidates from MinHash LSH banding)",
  paragraphs: "Jaccard resemblance of the sets of long-paragraph fingerprints",
};

/** What a document of each method is made of, and the options that decide it (for the warning about documents without any). */
const FEATURES: Record<SetMethod, [string, string]> = {
  exact: ["kept token", "--column, --keep-numbers"],
  simhash384: ["kept token", "--column, --keep-numbers"],
  minhash: ["kept token", "--column, --keep-numbers"],
  paragraphs: ["long paragraph", "--short-tokens, --column, --keep-numbers"],
};

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
}

/**
 * Reads the corpus once, running the method's chunk task on the pool: shards in corpus
 * order, and the documents skipped for their size (said on stderr too).
 */
export async function extractFeatures<S extends ShardBase>(
  inputs: readonly string[],
  workdir: string,
  task: string,
  options: FeatureOptions,
  exec: ExecutionOptions,
  pool: WorkerPool,
  reporter: Reporter,
): Promise<{ shards: S[]; skipped: SkippedDocs }> {
  for (const input of inputs) await checkReadable(input);
  if (inputs.filter((i) => i === "-").length > 1) throw new VertdupError("standard input (-) can be given only once");
  await mkdir(join(workdir, "methods"), { recursive: true });
  const progress = reporter.progress("reading", "docs");
  const pending: Promise<S>[] = [];
  let docs = 0;
  const skipped = noSkippedDocs();
  for await (const chunk of chunkCorpus(inputs, exec.chunkBytes ?? DEFAULT_CHUNK_BYTES, readLimits(exec.maxDocBytes, exec.oversize))) {
    if (chunk.skipped) noteSkipped(skipped, displayName(chunk.file), chunk.firstLine);
    // A buffer of its own, so that it is transferred rather than cloned.
    const own = new Uint8Array(chunk.bytes.length);
    own.set(chunk.bytes);
    const t: ChunkTask = { workdir, chunk: { ...chunk, bytes: Buffer.from(own.buffer) }, options };
    const { result } = await pool.submit<S>(task, t, [own.buffer]);
    const shard = result.then((s) => (progress.update((docs += s.ids.length)), s));
    // Awaited below with the others; a failure (a full disk) meanwhile must not go unhandled.
    shard.catch(() => undefined);
    pending.push(shard);
  }
  const shards = await Promise.all(pending);
  progress.finish();
  if (docs === 0) throw new VertdupError(`${inputs.join(", ")}: the corpus has no documents`);
  const warning = skippedDocumentsWarning(skipped, "they have no feature and are in no pair");
  if (warning !== undefined) reporter.info(warning);
  return { shards, skipped };
}

function countEmpty(flags: readonly Uint8Array[]): number {
  return flags.reduce((n, f) => n + f.reduce((m, x) => m + x, 0), 0);
}

/** The method's candidate search and verification over the shards' features: its duplicate graph. */
async function search(run: MethodRun, shards: readonly ShardBase[], documents: number, workdir: string, pool: WorkerPool) {
  switch (run.method) {
    case "exact": {
      const s = shards as ExactShard[];
      return { graph: exactGraph(s, documents), candidates: 0, empty: countEmpty(s.map((x) => x.empty)) };
    }
    case "simhash384": {
      const s = shards as SimhashShard[];
      return { ...simhashGraph(s, documents, run.search.maxDistance), empty: countEmpty(s.map((x) => x.empty)) };
    }
    case "minhash": {
      const s = shards as MinhashShard[];
      const found = await minhashGraph(s, { documents, bands: run.features.bands, threshold: run.search.threshold, memory: run.search.memory, workdir, pool });
      return { ...found, empty: countEmpty(s.map((x) => x.empty)) };
    }
    case "paragraphs": {
      const s = shards as ParagraphShard[];
      const empty = s.reduce((n, x) => n + x.long.lengths.reduce((m, len) => m + (len === 0 ? 1 : 0), 0), 0);
      return { ...paragraphGraph(s, documents, run.search.threshold), empty };
    }
  }
}

/** `vertdup run --method <not lsh-cosine>`: corpus → features → pairs → clusters, manifest. */
export async function runMethod(
  inputs: readonly string[],
  workdir: string,
  outdir: string,
  run: MethodRun,
  exec: ExecutionOptions,
  reporter: Reporter,
): Promise<MethodManifest> {
  if (run.calibrate !== undefined) refuseUncalibrated(run.method);
  await ensureWritableDir(outdir);
  const clock = new PhaseClock();
  const pool = new WorkerPool("methods", exec.workers);
  try {
    const kernels = run.method === "minhash" ? { minhash: minhashKernelStatus(run.features.numPerm, (m) => reporter.info(m)) } : undefined;
    clock.start("features");
    const { shards, skipped } = await extractFeatures<ShardBase>(inputs, workdir, run.method, run.features, exec, pool, reporter);
    clock.stop("features");
    const ids = DocIds.fromLists(shards.map((s) => s.ids));
    for (const s of shards) s.ids = [];
    const tokens = concatU32(shards.map((s) => s.tokens));
    clock.start("search");
    const found = await search(run, shards, ids.length, workdir, pool);
    clock.stop("search");
    clock.start("output");
    const written = await writeGraphOutputs(outdir, found.graph, ids, tokens, { keep: run.keep, pairs: run.pairs ?? DEFAULT_PAIRS });
    clock.stop("output");
    let calibration;
    if (run.calibrate !== undefined && isCalibrated(run)) {
      clock.start("calibrate");
      const calibrated = await calibrateMethod(run, shards, ids.length, workdir, outdir, pool, run.calibrate);
      clock.stop("calibrate");
      reporter.info(calibrated.summary);
      calibration = calibrated.calibration;
    }
    const reader = emptyWarnings();
    for (const s of shards) addWarnings(reader, s.warnings);
    const warning = emptyDocumentsWarning(found.empty - skipped.documents, ids.length, ...FEATURES[run.method]);
    if (warning !== undefined) reporter.info(warning);
    const manifest: MethodManifest = {
      version: packageVersion(),
      created: new Date().toISOString(),
      method: run.method,
      similarity: SIMILARITY[run.method],
      inputs: [...inputs],
      prepare: run.features,
      search: run.search,
      counts: {
        shards: shards.length,
        documents: ids.length,
        tokens: tokens.reduce((n, t) => n + t, 0),
        emptyDocuments: found.empty - skipped.documents,
        candidates: found.candidates,
        ...("verifyBlocks" in found ? { verifyBlocks: found.verifyBlocks } : {}),
        groups: written.groups,
        documentsInGroups: written.documentsInGroups,
        edges: written.edges,
        pairs: written.pairLines,
      },
      clusters: written.clusters,
      warnings: runWarnings(reader, found.empty, skipped),
      ...(kernels === undefined ? {} : { kernels }),
      ...(calibration === undefined ? {} : { calibration }),
      phases: clock.timings(),
    };
    await writeMethodManifest(outdir, manifest);
    if (run.report !== false) await writeReport(outdir, { seed: run.features.seed, maxDocBytes: exec.maxDocBytes, warn: (m) => reporter.info(`warning: ${m}`) });
    return manifest;
  } finally {
    await pool.close();
  }
}
