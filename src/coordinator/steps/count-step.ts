import { existsSync } from "node:fs";
import { cutCorpus, noSkippedDocs, noteSkipped, readLimits, type ReadLimits, type SkippedDocs } from "../../corpus/chunker.js";
import { chainStart, linkEnd, newLink, type ChainedChunk } from "../../corpus/chunk-chain.js";
import { cutChunk, plannedChunk, readChunkPlan, writeChunkPlan, type InputPlan, type PlannedRange } from "../../corpus/chunk-plan.js";
import { fileRanges, type FileRange } from "../../corpus/corpus-chunks.js";
import { InputPlaces } from "../../corpus/input-places.js";
import { displayName } from "../../corpus/open-input.js";
import type { CountTask, ShardStats } from "../../features/count-shard.js";
import { tokenHashKernelStatus } from "../../features/token-hash-wasm.js";
import { InOrder } from "../in-order.js";
import { writeAtomic } from "../../util/atomic.js";
import { ownedBytes } from "../../util/typed-arrays.js";
import { VertdupError } from "../../util/errors.js";
import type { WorkerPool } from "../pool.js";
import type { Reporter } from "../progress.js";
import type { RunConfig } from "../run-config.js";
import { chunksFile, inSlice, markerFile, shardName, writeKernelsMarker, type Slice } from "../workdir.js";
import { markerStats, TaskRunner } from "../../executor/tasks.js";

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
export async function countStep(workdir: string, config: RunConfig, slice: Slice, pool: WorkerPool, reporter: Reporter): Promise<ChunkCounts> {
  const progress = reporter.progress("reading", "docs");
  const runner = new TaskRunner<ShardStats>(workdir);
  let shards = 0;
  const skipped = noSkippedDocs();
  const limits = readLimits(config.maxDocBytes, config.oversize);
  const first = config.firstOrdinal ?? 0;
  // The link of the last chunk given, and the completion of its task.
  let last = chainStart(first);
  let lastDone: Promise<unknown> = Promise.resolve();
  const linked: Promise<unknown>[] = [];
  let read = 0;
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
      const { result } = await runner.add({ marker, start: () => pool.submit<ShardStats>("count", task, transfer), load: markerStats(workdir, marker), stats: (s) => s });
      if (counted) lastDone = result;
    }
    if (!counted) {
      lastDone = (await pool.submit<void>("link", chained, transfer)).result;
      linked.push(lastDone);
    }
    void lastDone.then(() => progress.update((read = Math.max(read, linkEnd(self).doc - first)))).catch(() => undefined);
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
 * Cuts a plain file into ranges (fileRanges) and has the pool measure each (its documents and
 * lines, which number the next range's): `use` gets them in file order. A document skipped
 * for its size comes as a range of its own, after the ranges before it.
 */
async function measureFile(path: string, size: number, chunkBytes: number, limits: ReadLimits, pool: WorkerPool, use: (range: PlannedRange) => Promise<void>): Promise<void> {
  if (size === 0) throw new VertdupError(`${displayName(path)}: input is empty`);
  let firstLine = 1;
  const measured = new InOrder<{ docCount: number; lines: number }, { range: FileRange; line?: number }>(pool, "measure", async ({ docCount, lines }, { range, line }) => {
    // After a skipped document, the next range knows its line (the skip counted them).
    if (line !== undefined) firstLine = line;
    const planned = { offset: range.offset, length: range.length, firstLine, docCount };
    firstLine += lines;
    await use(planned);
  });
  for (const cut of fileRanges(path, size, chunkBytes, limits)) {
    if (cut.skipped) {
      // Rare: the ranges before it are numbered first, then its stub (as the chunker's).
      await measured.drain();
      await use({ offset: cut.offset, length: cut.length, firstLine: cut.firstLine ?? firstLine, docCount: 1, skipped: true });
      continue;
    }
    const range: FileRange = { path, offset: cut.offset, length: cut.length };
    await measured.submit(range, { range, line: cut.firstLine });
  }
  await measured.drain();
}

/**
 * The plan job of a Slurm run (lsh-cosine): cuts and measures the plain inputs once, on the
 * pool, and writes their ranges as the work directory's chunk plan, so that each count task
 * reads only its own ranges instead of measuring the whole corpus again. Compressed inputs
 * have no plan (every count task decompresses them through). Nothing to do when the plan is
 * in place (a re-submission).
 */
export async function planStep(workdir: string, config: RunConfig, pool: WorkerPool, reporter: Reporter): Promise<void> {
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
    const ranges: PlannedRange[] = [];
    await measureFile(path, stamp.size, config.chunkBytes, limits, pool, async (r) => {
      ranges.push(r);
      progress.update(++chunks);
    });
    planned.push({ path, size: stamp.size, mtimeMs: stamp.mtimeMs, ranges });
  }
  places.checkUnchanged();
  progress.finish();
  await writeChunkPlan(workdir, { chunkBytes: config.chunkBytes, maxDocBytes: config.maxDocBytes, oversize: config.oversize, inputs: planned });
}
