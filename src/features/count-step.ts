import { existsSync } from "node:fs";
import { cutCorpus, noSkippedDocs, noteSkipped, readLimits, type SkippedDocs } from "../corpus/chunker.js";
import { chainStart, linkEnd, newLink, type ChainedChunk, type ChainLink } from "../corpus/chunk-chain.js";
import { chunkPlanFile, cutChunk, plannedChunk, readChunkPlan, writeChunkPlan, type InputPlan, type PlannedRange } from "../corpus/chunk-plan.js";
import { fileRanges, type CutRange } from "../corpus/corpus-chunks.js";
import { InputPlaces } from "../corpus/input-places.js";
import { displayName } from "../corpus/open-input.js";
import type { CountTask, ShardStats } from "./count-shard.js";
import { COUNT_WORKERS, type CountTasks } from "./count-entry.js";
import { tokenHashKernelStatus } from "./token-hash-wasm.js";
import { writeAtomic } from "../util/atomic.js";
import { ownedBytes } from "../util/typed-arrays.js";
import { VertdupError } from "../core/errors.js";
import type { TaskPool } from "../executor/in-process-pool.js";
import { stderrReporter, type Reporter } from "../executor/progress.js";
import type { Step } from "../executor/pipeline.js";
import { readRunConfig, type RunConfig } from "../workdir/run-config.js";
import { chunksFile, COUNT_FILES, inSlice, markerFile, shardFile, shardName, writeKernelsMarker, type Slice } from "../workdir/layout.js";
import { markerStats, TaskRunner } from "../executor/tasks.js";
import { readJsonFile, WORKDIR_ADVICE } from "../util/json-file.js";

/** What the whole corpus amounts to, known once it has been read through. */
export interface ChunkCounts {
  shards: number;
  documents: number;
  /** Documents skipped for their size (absent when none, and in older work directories). */
  skipped?: SkippedDocs;
}

/**
 * Pass 1 for the chunks of one slice: term counts, ids and partial df per chunk, each chunk
 * a task on the pool that the executor (TaskRunner) runs, or skips if its marker is in
 * place. Chunk boundaries depend on the bytes alone.
 * A plain file is cut by reading small windows at the cut points and its workers read their
 * ranges themselves; compressed inputs and standard input are read and cut by the
 * coordinator, and their bytes moved to the workers. Either way the coordinator does not
 * count documents nor lines: each task counts its chunk's, takes its first ordinal and line
 * from the chunk before it and passes on its own end (chunk-chain.ts), before it parses. A
 * chunk not counted here (another slice's, or already done) is only numbered, by a `link`
 * task. Every slice records the corpus's chunk and document counts. Ordinals start at the
 * configuration's `firstOrdinal`.
 */
export async function countStep(workdir: string, config: RunConfig, slice: Slice, pool: TaskPool<CountTasks>, reporter: Reporter): Promise<ChunkCounts> {
  const progress = reporter.progress("reading", "docs");
  // Nothing acts on a count task's completion before the step's end.
  const runner = new TaskRunner<ShardStats>(workdir, true);
  let shards = 0;
  const skipped = noSkippedDocs();
  const limits = readLimits(config.maxDocBytes, config.oversize);
  const first = config.firstOrdinal ?? 0;
  // The link of the last chunk given, and the completion of its task.
  let last = chainStart(first);
  let lastDone: Promise<unknown> = Promise.resolve();
  const linked: Promise<unknown>[] = [];
  let shown = 0;
  const count = async (chunk: Omit<ChainedChunk, "index" | "prev" | "self">, transfer: ArrayBuffer[]) => {
    const index = shards++;
    const self = newLink();
    // A skipped document's stub is one document (the chunker's stub is not measured).
    const chained: ChainedChunk = { ...chunk, ...(chunk.skipped ? { docCount: 1 } : {}), index, prev: last, self };
    last = self;
    if (chunk.skipped) noteSkipped(skipped, displayName(chunk.file), chunk.firstLine!);
    const marker = `count-${shardName(index)}`;
    const counted = inSlice(index, slice) && !existsSync(markerFile(workdir, marker));
    if (inSlice(index, slice)) {
      const task: CountTask = { workdir, chunk: chained, options: config.prepare };
      const unsynced = COUNT_FILES.map((kind) => shardFile(workdir, index, kind));
      const { result } = await runner.add({ marker, start: () => pool.submit("count", task, transfer), load: markerStats(workdir, marker), stats: (s) => s, unsynced });
      if (counted) lastDone = result;
    }
    if (!counted) {
      lastDone = (await pool.submit("link", chained, transfer)).result;
      linked.push(lastDone);
    }
    void lastDone.then(() => progress.update((shown = Math.max(shown, linkEnd(self).doc - first)))).catch(() => undefined);
  };
  const inputs = config.inputs.map((i) => i.path);
  const places = new InputPlaces(inputs);
  // Made by the plan job of a Slurm run: the plain inputs' ranges, not measured again here.
  const plan = await readChunkPlan(workdir, config);
  // The line after the last chunk given, once its task has counted it (cutCorpus asks it only to name an oversized document's line).
  const lineBefore = async () => {
    await lastDone;
    return linkEnd(last).line;
  };
  for (const [k, path] of inputs.entries()) {
    const size = places.size(path);
    const planned = plan?.inputs[k];
    if (size === null) {
      for await (const chunk of cutCorpus([path], config.chunkBytes, limits, lineBefore)) {
        // Transferred, not cloned: the chunker's buffers are their own (a skipped one's stub is copied).
        const own = ownedBytes(chunk.bytes);
        await count({ ...chunk, bytes: own }, [own.buffer as ArrayBuffer]);
      }
    } else if (planned) {
      for (const r of planned.ranges) await count(plannedChunk(path, r, limits.maxDocBytes), []);
    } else {
      if (size === 0) throw new VertdupError(`${displayName(path)}: input is empty`);
      for (const cut of fileRanges(path, size, config.chunkBytes, limits)) await count(cutChunk(path, cut, limits.maxDocBytes), []);
    }
  }
  await runner.results();
  await Promise.all(linked);
  await writeKernelsMarker(workdir, "count", slice, { "token-hash": tokenHashKernelStatus((m) => reporter.info(m)) });
  places.checkUnchanged();
  const documents = linkEnd(last).doc - first;
  progress.update(documents);
  progress.finish();
  const counts: ChunkCounts = { shards, documents, ...(skipped.documents > 0 ? { skipped } : {}) };
  await writeAtomic(chunksFile(workdir), JSON.stringify(counts) + "\n");
  return counts;
}

/**
 * The plan job of a Slurm run (lsh-cosine): cuts and measures the plain inputs once, on the
 * pool, and writes their ranges as the work directory's chunk plan, so that each count task
 * reads only its own ranges instead of measuring the whole corpus again. Compressed inputs
 * have no plan (every count task decompresses them through). Nothing to do when the plan is
 * in place (a re-submission).
 */
export async function planStep(workdir: string, config: RunConfig, pool: TaskPool<CountTasks>, reporter: Reporter): Promise<void> {
  if ((await readChunkPlan(workdir, config)) !== null) return;
  const limits = readLimits(config.maxDocBytes, config.oversize);
  const inputs = config.inputs.map((i) => i.path);
  const places = new InputPlaces(inputs);
  const progress = reporter.progress("planning", "chunks");
  let chunks = 0;
  const planned: (InputPlan | null)[] = [];
  for (const path of inputs) {
    const stamp = places.stamp(path);
    if (stamp === null) {
      planned.push(null);
      continue;
    }
    if (stamp.size === 0) throw new VertdupError(`${displayName(path)}: input is empty`);
    // Each range numbered by a link task; the ordinals of this file's own count from 0.
    const linked: { cut: CutRange; firstLine?: number; prev: ChainLink; self: ChainLink; done: Promise<void> }[] = [];
    let prev = chainStart(0);
    for (const cut of fileRanges(path, stamp.size, config.chunkBytes, limits)) {
      const chunk: ChainedChunk = { ...cutChunk(path, cut, limits.maxDocBytes), index: linked.length, prev, self: newLink() };
      const { result } = await pool.submit("link", chunk);
      void result.then(() => progress.update(++chunks)).catch(() => undefined);
      linked.push({ cut, firstLine: chunk.firstLine, prev, self: chunk.self, done: result });
      prev = chunk.self;
    }
    await Promise.all(linked.map((l) => l.done));
    const ranges = linked.map(({ cut, firstLine, prev, self }): PlannedRange => {
      const start = linkEnd(prev);
      const range = { offset: cut.offset, length: cut.length, firstLine: firstLine ?? start.line, docCount: linkEnd(self).doc - start.doc };
      return cut.skipped ? { ...range, skipped: true } : range;
    });
    planned.push({ path, size: stamp.size, mtimeMs: stamp.mtimeMs, ranges });
  }
  places.checkUnchanged();
  progress.finish();
  await writeChunkPlan(workdir, { chunkBytes: config.chunkBytes, maxDocBytes: config.maxDocBytes, oversize: config.oversize, inputs: planned });
}

/** chunks.json: what the count step found the whole corpus to be. */
export async function readChunkCounts(workdir: string): Promise<ChunkCounts> {
  if (!existsSync(chunksFile(workdir))) throw new VertdupError(`${workdir}: the corpus has not been read yet (no chunks.json): run the count step first`);
  return readJsonFile<ChunkCounts>(chunksFile(workdir), WORKDIR_ADVICE);
}

/** Chunks of the corpus, once a reading task has read it through (chunks.json). */
export async function chunkTotal(workdir: string): Promise<number | undefined> {
  return existsSync(chunksFile(workdir)) ? (await readChunkCounts(workdir)).shards : undefined;
}

/**
 * The step that cuts and measures the plain inputs once (the chunk plan), so that each slice
 * of a reading step run in another process (a Slurm array task) reads only its byte ranges.
 */
export function chunkPlanStep(workdir: string): Step {
  return {
    name: "plan",
    forSlices: true,
    pools: [COUNT_WORKERS],
    timing: "plan",
    run: async ({ quiet, context }) => planStep(workdir, await readRunConfig(workdir), context.pool(COUNT_WORKERS), stderrReporter(quiet)),
    progress: async () => ({ done: existsSync(chunkPlanFile(workdir)) ? 1 : 0, total: 1 }),
  };
}
