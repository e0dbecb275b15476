import { mkdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { chunkCorpus, noSkippedDocs, noteSkipped, readLimits, type SkippedDocs, type StoredChunk } from "../../corpus/chunker.js";
import { plannedChunk, readChunkPlan } from "../../corpus/chunk-plan.js";
import { InputPlaces } from "../../corpus/input-places.js";
import { checkReadable, displayName } from "../../corpus/open-input.js";
import { skippedDocumentsWarning } from "../../corpus/run-warnings.js";
import type { FeatureOptions } from "../../core/method-options.js";
import type { ExecutionOptions } from "../../core/options.js";
import { VertdupError } from "../../core/errors.js";
import type { TaskPool } from "../../executor/in-process-pool.js";
import type { FeaturesTask, MethodsTasks } from "./methods-entry.js";
import type { Reporter } from "../../executor/progress.js";
import { runTasks, type StepTask } from "../../executor/tasks.js";
import { readChunkCounts, type ChunkCounts } from "../../features/count-step.js";
import { writeAtomic } from "../../util/atomic.js";
import { readRunFileSync, writeRunFile } from "../../util/run-file.js";
import { chunksFile, inSlice, resetWorkdir, shardName, WHOLE, type Slice } from "../../workdir/layout.js";
import { adoptRunConfig, chunkBytesFor, stampInputs } from "../../workdir/run-config.js";
import type { FeaturesConfig } from "./set-method.js";
import type { ChunkTask, ShardBase } from "./shard-scan.js";

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

/**
 * The inputs checked and the configuration of a features step over them (`task`: the method's
 * chunk task), for the work directory `workdir`, resumed or not (its chunk size: chunkBytesFor).
 */
export async function featuresConfig(inputs: readonly string[], task: FeaturesTask, options: FeatureOptions, exec: Pick<ExecutionOptions, "chunkBytes" | "maxDocBytes" | "oversize">, workdir: string, resume: boolean): Promise<FeaturesConfig> {
  for (const input of inputs) await checkReadable(input);
  if (inputs.filter((i) => i === "-").length > 1) throw new VertdupError("standard input (-) can be given only once");
  return {
    inputs: await stampInputs(inputs),
    prepare: { method: task, ...options },
    chunkBytes: chunkBytesFor(exec.chunkBytes, workdir, resume),
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
export async function featuresStep<S extends ShardBase>(workdir: string, config: FeaturesConfig, slice: Slice, pool: TaskPool<MethodsTasks>, reporter: Reporter): Promise<{ shards: S[]; skipped: SkippedDocs }> {
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
          const { result } = await pool.submit(task, t, own instanceof Uint8Array ? [own.buffer as ArrayBuffer] : []);
          return {
            result: result.then(async (made) => {
              // The config's task makes the caller's kind of shard.
              const shard = made as ShardBase as S;
              await writeRunFile(file, [storedShard(shard)]);
              return counted(shard);
            }),
          };
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
  task: FeaturesTask,
  options: FeatureOptions,
  exec: ExecutionOptions,
  pool: TaskPool<MethodsTasks>,
  reporter: Reporter,
  resume: boolean,
): Promise<{ shards: S[]; skipped: SkippedDocs }> {
  const config = await featuresConfig(inputs, task, options, exec, workdir, resume);
  await startFeatures(workdir, config, resume);
  return featuresStep<S>(workdir, config, WHOLE, pool, reporter);
}

/** What a finished features step left: every chunk's shard read back in corpus order, and the documents skipped for their size. */
export async function loadFeatures<S extends ShardBase>(workdir: string): Promise<{ shards: S[]; skipped: SkippedDocs }> {
  const counts = await readChunkCounts(workdir);
  const shards = Array.from({ length: counts.shards }, (_, k) => {
    const file = featureShardFile(workdir, k);
    return loadedShard(file, readRunFileSync<S>(file)[0]);
  });
  return { shards, skipped: counts.skipped ?? noSkippedDocs() };
}
