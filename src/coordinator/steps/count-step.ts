import { chunkCorpus, noSkippedDocs, noteSkipped, readLimits, type ReadLimits, type SkippedDocs } from "../../corpus/chunker.js";
import { plannedChunk, readChunkPlan, writeChunkPlan, type InputPlan, type PlannedRange } from "../../corpus/chunk-plan.js";
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
import { chunksFile, inSlice, shardName, writeKernelsMarker, type Slice } from "../workdir.js";
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
 * A plain file is cut by reading small windows at the cut points; workers count each
 * range's documents and lines (`measure`, in corpus order they number the next range's) and
 * read their ranges themselves, so the coordinator never reads the file. Compressed inputs
 * and standard input are read and cut by the coordinator, and their bytes moved to the
 * workers. Every slice measures all ranges, skips chunks of other slices and chunks already
 * done, and records the corpus's chunk and document counts. Ordinals start at the
 * configuration's `firstOrdinal`.
 */
export async function countStep(workdir: string, config: RunConfig, slice: Slice, pool: WorkerPool, reporter: Reporter): Promise<ChunkCounts> {
  const progress = reporter.progress("reading", "docs");
  const runner = new TaskRunner<ShardStats>(workdir);
  let shards = 0;
  let documents = 0;
  const skipped = noSkippedDocs();
  const limits = readLimits(config.maxDocBytes, config.oversize);
  const first = config.firstOrdinal ?? 0;
  const count = async (chunk: CountTask["chunk"], transfer: ArrayBuffer[]) => {
    shards++;
    if (chunk.skipped) noteSkipped(skipped, displayName(chunk.file), chunk.firstLine);
    documents += chunk.docCount;
    if (inSlice(chunk.index, slice)) {
      const marker = `count-${shardName(chunk.index)}`;
      const task: CountTask = { workdir, chunk, options: config.prepare };
      await runner.add({ marker, start: () => pool.submit<ShardStats>("count", task, transfer), load: markerStats(workdir, marker), stats: (s) => s });
    }
    progress.update(documents);
  };
  const inputs = config.inputs.map((i) => i.path);
  const places = new InputPlaces(inputs);
  // Made by the plan job of a Slurm run: the plain inputs' ranges, not measured again here.
  const plan = await readChunkPlan(workdir, config);
  for (const [k, path] of inputs.entries()) {
    const size = places.size(path);
    if (size === null) {
      for await (const chunk of chunkCorpus([path], config.chunkBytes, limits)) {
        // Transferred, not cloned: the chunker's buffers are their own (a skipped one's stub is copied).
        const own = ownedBytes(chunk.bytes);
        await count({ ...chunk, index: shards, firstDoc: first + documents, bytes: own }, [own.buffer as ArrayBuffer]);
      }
      continue;
    }
    const chunkOf = (r: PlannedRange) => count({ ...plannedChunk(path, r, limits.maxDocBytes), index: shards, firstDoc: first + documents }, []);
    const planned = plan?.inputs[k];
    if (planned) for (const r of planned.ranges) await chunkOf(r);
    else await measureFile(path, size, config.chunkBytes, limits, pool, chunkOf);
  }
  await runner.results();
  await writeKernelsMarker(workdir, "count", slice, { "token-hash": tokenHashKernelStatus((m) => reporter.info(m)) });
  places.checkUnchanged();
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
