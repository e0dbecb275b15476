import { mkdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { chunkCorpus, noSkippedDocs, noteSkipped, readLimits, type SkippedDocs, type StoredChunk } from "../../corpus/chunker.js";
import { plannedChunk, readChunkPlan } from "../../corpus/chunk-plan.js";
import { InputPlaces } from "../../corpus/input-places.js";
import { checkReadable, displayName } from "../../corpus/open-input.js";
import { addWarnings, emptyWarnings } from "../../corpus/vertical.js";
import { PhaseClock } from "../../executor/timing.js";
import { WorkerPool } from "../../executor/pool.js";
import type { Reporter } from "../../executor/progress.js";
import { DocIds } from "../../output/doc-ids.js";
import { writeGraphOutputs } from "../../output/graph-outputs.js";
import { emptyDocumentsWarning, runWarnings, skippedDocumentsWarning } from "../../corpus/run-warnings.js";
import { DEFAULT_CHUNK_BYTES, DEFAULT_PAIRS, type ExecutionOptions } from "../../core/options.js";
import { VertdupError } from "../../core/errors.js";
import { ensureWritableDir } from "../../util/output-dir.js";
import { packageVersion } from "../../util/package-info.js";
import { exactGraph, type ExactShard } from "../exact/exact.js";
import { writeManifest, type MethodManifest } from "../manifest.js";
import type { FeatureOptions } from "../../core/method-options.js";
import type { FeaturesConfig, MethodRun, SetMethod } from "./set-method.js";
import type { MinhashShard } from "../minhash/minhash.js";
import { minhashGraph, type KnownEdges } from "../minhash/search.js";
import { minhashKernelStatus } from "../minhash/minhash-wasm.js";
import { paragraphGraph, type ParagraphShard } from "../paragraph-sets/paragraph-sets.js";
import type { ChunkTask, ShardBase } from "./shard-scan.js";
import { concatU32 } from "../../util/typed-arrays.js";
import { runTasks, type StepTask } from "../../executor/tasks.js";
import { readRunFileSync, writeRunFile } from "../../util/run-file.js";
import { chunksFile, inSlice, resetWorkdir, shardName, WHOLE, type Slice } from "../../workdir/layout.js";
import type { ChunkCounts } from "../../features/count-step.js";
import { writeAtomic } from "../../util/atomic.js";
import { adoptRunConfig, stampInputs } from "../../workdir/run-config.js";
import { simhashGraph, type SimhashShard } from "../simhash384/simhash384.js";
import { writeReport } from "../../report/write-report.js";
import { refuseUncalibrated } from "../../eval/calibration.js";
import { calibrateMethod, isCalibrated } from "./method-calibration.js";
import type { DuplicateGraph } from "../../clusters/duplicate-graph.js";
import { lockWorkdirs } from "../../workdir/lock.js";
import { DocSources } from "../../output/doc-sources.js";
import { checkAgainstUse, IndexUpdate, newIndex, readIndex, removeIndex, requireCompatible, type IndexManifest } from "../../workdir/index-store.js";
import { checkedDigests } from "../../workdir/batch-digest.js";
import { loadIndexShards, loadKnownEdges, saveBatch, saveEdges } from "./method-index.js";


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


/**
 * The options that decide a method's features, by command-line name: an index and a batch
 * compared with it must agree on them (search options such as --threshold may differ: the
 * search runs again over the stored features).
 */
export function indexOptions(method: SetMethod, f: FeatureOptions): Record<string, unknown> {
  const common = { "--column": f.column, "--lowercase": f.lowercase, "--keep-numbers": f.keepNumbers };
  if (method === "minhash") return { ...common, "--shingle-size": f.shingleSize, "--num-perm": f.numPerm, "--bands": f.bands, "--rows": f.rows, "--seed": f.seed };
  if (method === "paragraphs") return { ...common, "--short-tokens": f.shortTokens };
  return common;
}

/** A chunk's shard as its features task made it (the minhash sets file apart). */
export function featureShardFile(workdir: string, index: number): string {
  return join(workdir, "methods", `${shardName(index)}.shard.zst`);
}

/** A shard with a file of its own (minhash's sets file). */
type WithFile = ShardBase & { sets: string };

const hasFile = (shard: ShardBase): shard is WithFile => typeof (shard as Partial<WithFile>).sets === "string";

/**
 * A shard as its shard file keeps it: its own file, which lies beside the shard file, by name
 * only, so that a moved work directory resumes.
 */
function storedShard<S extends ShardBase>(shard: S): S {
  return hasFile(shard) ? { ...shard, sets: basename(shard.sets) } : shard;
}

/** A shard read from its shard `file`, with the path of its own file (older versions stored a full path: its name is kept). */
function loadedShard<S extends ShardBase>(file: string, shard: S): S {
  return hasFile(shard) ? { ...shard, sets: join(dirname(file), basename(shard.sets)) } : shard;
}


/** The inputs checked and the configuration of a features step over them (`task`: the method's chunk task). */
export async function featuresConfig(inputs: readonly string[], task: string, options: FeatureOptions, exec: ExecutionOptions): Promise<FeaturesConfig> {
  for (const input of inputs) await checkReadable(input);
  if (inputs.filter((i) => i === "-").length > 1) throw new VertdupError("standard input (-) can be given only once");
  return {
    inputs: await stampInputs(inputs),
    prepare: { method: task, ...options },
    chunkBytes: exec.chunkBytes ?? DEFAULT_CHUNK_BYTES,
    maxDocBytes: exec.maxDocBytes,
    ...(exec.oversize === "skip" ? { oversize: "skip" } : {}),
  };
}

/** Records the configuration in the work directory, clearing it unless `resume` may reuse its features (same configuration). */
export async function startFeatures(workdir: string, config: FeaturesConfig, resume: boolean): Promise<void> {
  await mkdir(workdir, { recursive: true });
  if (!(await adoptRunConfig(workdir, config, resume))) await resetWorkdir(workdir);
  await mkdir(join(workdir, "methods"), { recursive: true });
}

/**
 * The features step for the chunks of `slice` (config.json in place): reads the corpus once,
 * running the method's chunk task on the pool for each chunk of the slice whose marker is not
 * in place (the others are read back from their shard files). With a chunk plan (a Slurm
 * run's), plain inputs are not read here: each task reads its planned byte range. Returns the
 * slice's shards in corpus order and the documents skipped for their size (said on stderr
 * too); records the corpus's chunk and document counts (chunks.json), as every slice sees them all.
 */
export async function featuresStep<S extends ShardBase>(workdir: string, config: FeaturesConfig, slice: Slice, pool: WorkerPool, reporter: Reporter): Promise<{ shards: S[]; skipped: SkippedDocs }> {
  const { method: task, ...options } = config.prepare;
  const inputs = config.inputs.map((i) => i.path);
  const progress = reporter.progress("reading", "docs");
  let docs = 0;
  let chunks = 0;
  let documents = 0;
  const counted = (s: S) => (progress.update((docs += s.ids.length)), s);
  const skipped = noSkippedDocs();
  const limits = readLimits(config.maxDocBytes, config.oversize);
  // Made by the plan job of a Slurm run: a plain input's chunks are its planned byte ranges,
  // which the tasks read themselves; other inputs are read through and cut here.
  const plan = await readChunkPlan(workdir, config);
  const places = new InputPlaces(inputs);
  async function* corpusChunks(): AsyncGenerator<Omit<StoredChunk, "index" | "firstDoc">> {
    for (const [k, path] of inputs.entries()) {
      const planned = plan?.inputs[k];
      if (planned) for (const r of planned.ranges) yield plannedChunk(path, r, limits.maxDocBytes);
      else yield* chunkCorpus([path], config.chunkBytes, limits);
    }
  }
  async function* tasks(): AsyncGenerator<StepTask<S>> {
    for await (const place of corpusChunks()) {
      const chunk: StoredChunk = { ...place, index: chunks++, firstDoc: documents };
      documents += chunk.docCount;
      if (chunk.skipped) noteSkipped(skipped, displayName(chunk.file), chunk.firstLine);
      if (!inSlice(chunk.index, slice)) continue;
      const file = featureShardFile(workdir, chunk.index);
      yield {
        marker: `features-${shardName(chunk.index)}`,
        start: async () => {
          // Bytes in memory get a buffer of their own, so that they are transferred rather than cloned.
          const own = chunk.bytes instanceof Uint8Array ? new Uint8Array(chunk.bytes) : chunk.bytes;
          const t: ChunkTask = { workdir, chunk: { ...chunk, bytes: own }, options };
          const { result } = await pool.submit<S>(task, t, own instanceof Uint8Array ? [own.buffer as ArrayBuffer] : []);
          return { result: result.then(async (s) => (await writeRunFile(file, [storedShard(s)]), counted(s))) };
        },
        load: async () => counted(loadedShard(file, readRunFileSync<S>(file)[0])),
        stats: (s) => ({ documents: s.ids.length }),
      };
    }
  }
  const shards = await runTasks(workdir, tasks());
  places.checkUnchanged();
  progress.finish();
  if (documents === 0) throw new VertdupError(`${inputs.join(", ")}: the corpus has no documents`);
  const counts: ChunkCounts = { shards: chunks, documents, ...(skipped.documents > 0 ? { skipped } : {}) };
  await writeAtomic(chunksFile(workdir), JSON.stringify(counts) + "\n");
  const warning = skippedDocumentsWarning(skipped, "they have no feature and are in no pair");
  if (warning !== undefined) reporter.info(warning);
  return { shards, skipped };
}

/** The features step over the whole corpus, in a work directory made (or, with `resume`, reused) for it. */
export async function extractFeatures<S extends ShardBase>(
  inputs: readonly string[],
  workdir: string,
  task: string,
  options: FeatureOptions,
  exec: ExecutionOptions,
  pool: WorkerPool,
  reporter: Reporter,
  resume: boolean,
): Promise<{ shards: S[]; skipped: SkippedDocs }> {
  const config = await featuresConfig(inputs, task, options, exec);
  await startFeatures(workdir, config, resume);
  return featuresStep<S>(workdir, config, WHOLE, pool, reporter);
}

/** Documents of `shards` without any feature (no kept token, no long paragraph). */
function countEmpty(method: SetMethod, shards: readonly ShardBase[]): number {
  if (method === "paragraphs") return (shards as ParagraphShard[]).reduce((n, x) => n + x.long.lengths.reduce((m, len) => m + (len === 0 ? 1 : 0), 0), 0);
  return (shards as (ShardBase & { empty: Uint8Array })[]).reduce((n, x) => n + x.empty.reduce((m, e) => m + e, 0), 0);
}

/** The method's candidate search and verification over the shards' features: its duplicate graph. */
async function search(run: MethodRun, shards: readonly ShardBase[], documents: number, workdir: string, pool: WorkerPool, known?: KnownEdges): Promise<{ graph: DuplicateGraph; candidates: number; verified?: number; verifyBlocks?: number }> {
  switch (run.method) {
    case "exact":
      return { graph: exactGraph(shards as ExactShard[], documents), candidates: 0 };
    case "simhash384":
      return simhashGraph(shards as SimhashShard[], documents, run.search.maxDistance);
    case "minhash":
      return minhashGraph(shards as MinhashShard[], { documents, bands: run.features.bands, threshold: run.search.threshold, memory: run.search.memory, workdir, pool, known });
    case "paragraphs":
      return paragraphGraph(shards as ParagraphShard[], documents, run.search.threshold);
  }
}

/** Refuses `--against`/`--update` combinations issue 15 refuses, before any lock is taken. */
export async function checkAgainst(run: MethodRun, workdir: string): Promise<void> {
  checkAgainstUse(run.against ?? [], { update: run.update === true, workdir });
  // Said plainly before taking the lock, which needs the directory; read again under it.
  if (run.update === true) await readIndex((run.against ?? [])[0]);
}

/** The `--against` indices, read and checked compatible with the run. */
export async function readIndices(run: MethodRun): Promise<IndexManifest[]> {
  const against = run.against ?? [];
  const indices: IndexManifest[] = [];
  for (const dir of against) {
    const index = await readIndex(dir);
    requireCompatible(dir, index, run.method, indexOptions(run.method, run.features));
    indices.push(index);
  }
  return indices;
}

/**
 * `vertdup run --method <not lsh-cosine>`: corpus → features → pairs → clusters, manifest.
 * With `--against`, the indices' stored shards come first (method-index.ts) and the outputs
 * keep the clusters with a new document; with `--update` the index's lock is held from
 * reading it to committing the batch.
 */
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
  const against = run.against ?? [];
  await checkAgainst(run, workdir);
  // Every index is locked for the whole run: no update changes one while it is read.
  const lock = await lockWorkdirs(against);
  const clock = new PhaseClock();
  const pool = new WorkerPool("methods", exec.workers);
  try {
    const indices = await readIndices(run);
    const warn = (m: string) => reporter.info(`warning: ${m}`);
    const digests = against.length > 0 || run.saveIndex === true ? await checkedDigests(against.map((dir, k) => ({ dir, manifest: indices[k] })), inputs, run.update === true, warn) : [];
    if (run.saveIndex) await removeIndex(workdir);
    const kernels = run.method === "minhash" ? { minhash: minhashKernelStatus(run.features.numPerm, (m) => reporter.info(m)) } : undefined;
    clock.start("features");
    const { shards: fresh, skipped } = await extractFeatures<ShardBase>(inputs, workdir, run.method, run.features, exec, pool, reporter, run.resume === true);
    const newDocuments = fresh.reduce((n, s) => n + s.tokens.length, 0);
    const sources = against.length === 0 ? undefined : new DocSources(against.map((dir, k) => ({ dir, documents: indices[k].documents })), newDocuments);
    const firstNew = sources?.firstNew ?? 0;
    const old: ShardBase[] = [];
    const placed = against.map((dir, k) => ({ dir, manifest: indices[k], offset: indices.slice(0, k).reduce((n, x) => n + x.documents, 0) }));
    for (const { dir, manifest, offset } of placed) old.push(...loadIndexShards(dir, manifest, offset));
    const known = run.method === "minhash" && against.length > 0 ? loadKnownEdges(placed, run.search.threshold) : undefined;
    for (const s of fresh) s.firstDoc += firstNew;
    const shards = [...old, ...fresh];
    clock.stop("features");
    const ids = DocIds.fromLists(shards.map((s) => s.ids));
    for (const s of shards) s.ids = [];
    const tokens = concatU32(shards.map((s) => s.tokens));
    clock.start("search");
    const found = await search(run, shards, ids.length, workdir, pool, known);
    clock.stop("search");
    clock.start("output");
    const written = await writeGraphOutputs(outdir, found.graph, ids, tokens, { keep: run.keep, pairs: run.pairs ?? DEFAULT_PAIRS, sources });
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
    for (const s of fresh) addWarnings(reader, s.warnings);
    const empty = countEmpty(run.method, fresh);
    const warning = emptyDocumentsWarning(empty - skipped.documents, newDocuments, ...FEATURES[run.method]);
    if (warning !== undefined) reporter.info(warning);
    const manifest: MethodManifest = {
      version: packageVersion(),
      created: new Date().toISOString(),
      method: run.method,
      similarity: SIMILARITY[run.method],
      inputs: [...inputs],
      ...(sources === undefined ? {} : { against: sources.indices.map((x) => ({ index: x.dir, documents: x.documents })) }),
      prepare: run.features,
      search: run.search,
      counts: {
        shards: shards.length,
        documents: ids.length,
        tokens: tokens.reduce((n, t) => n + t, 0),
        emptyDocuments: empty - skipped.documents,
        candidates: found.candidates,
        ...(known === undefined ? {} : { verifiedCandidates: found.verified }),
        ...(found.verifyBlocks === undefined ? {} : { verifyBlocks: found.verifyBlocks }),
        groups: written.groups,
        documentsInGroups: written.documentsInGroups,
        edges: written.edges,
        pairs: written.pairLines,
      },
      clusters: written.clusters,
      warnings: runWarnings(reader, empty, skipped),
      ...(kernels === undefined ? {} : { kernels }),
      ...(calibration === undefined ? {} : { calibration }),
      phases: clock.timings(),
    };
    await writeManifest(outdir, manifest);
    if (run.report !== false) await writeReport(outdir, { seed: run.features.seed, maxDocBytes: exec.maxDocBytes, warn: (m) => reporter.info(`warning: ${m}`) });
    const batch = { run, shards: fresh, ids, graph: found.graph };
    if (run.saveIndex) await appendBatch(new IndexUpdate(workdir, newIndex(run.method, indexOptions(run.method, run.features)), inputs, digests, newDocuments), batch, firstNew);
    if (run.update) await appendBatch(new IndexUpdate(against[0], indices[0], inputs, digests, newDocuments), batch, firstNew);
    return manifest;
  } finally {
    await pool.close();
    await lock.release();
  }
}

/**
 * Adds the new documents (from `firstNew` on in the run) to an index whose documents are the
 * run's from `from` on, and commits: their shards, and for minhash the edges among all of the
 * index's documents (minhash-search.ts, KnownEdges).
 */
async function appendBatch(update: IndexUpdate, b: { run: MethodRun; shards: readonly ShardBase[]; ids: DocIds; graph: DuplicateGraph }, firstNew: number): Promise<void> {
  await saveBatch(update, b.shards, b.ids, firstNew);
  const from = b.ids.length - update.manifest.documents;
  if (b.run.method === "minhash") await saveEdges(update, b.graph.edges, from, b.ids.length, b.run.search.threshold);
  await update.commit();
}
