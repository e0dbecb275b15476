import { chunkCorpus, noSkippedDocs, noteSkipped, readLimits, type SkippedDocs } from "../../corpus/chunker.js";
import { displayName } from "../../corpus/open-input.js";
import type { ShardStats } from "../../features/count-shard.js";
import { writeAtomic } from "../../util/atomic.js";
import type { WorkerPool } from "../pool.js";
import type { Reporter } from "../progress.js";
import type { RunConfig } from "../run-config.js";
import { chunksFile, inSlice, markerFile, shardName, type Slice } from "../workdir.js";
import { existsSync } from "node:fs";

/** What the whole corpus amounts to, known once it has been read through. */
export interface ChunkCounts {
  shards: number;
  documents: number;
  /** Documents skipped for their size (absent when none, and in older work directories). */
  skipped?: SkippedDocs;
}

/**
 * Pass 1 for the chunks of one slice: term counts, ids and partial df per chunk, each chunk
 * a task on the pool that leaves its marker. Every slice reads the corpus through to find
 * the chunk boundaries (they depend on the bytes alone), skips chunks of other slices and
 * chunks already done, and records the corpus's chunk and document counts.
 */
export async function countStep(workdir: string, config: RunConfig, slice: Slice, pool: WorkerPool, reporter: Reporter): Promise<ChunkCounts> {
  const progress = reporter.progress("reading", "docs");
  const pending: Promise<ShardStats>[] = [];
  let shards = 0;
  let documents = 0;
  const skipped = noSkippedDocs();
  const inputs = config.inputs.map((i) => i.path);
  for await (const chunk of chunkCorpus(inputs, config.chunkBytes, readLimits(config.maxDocBytes, config.oversize))) {
    shards++;
    if (chunk.skipped) noteSkipped(skipped, displayName(chunk.file), chunk.firstLine);
    documents += chunk.docCount;
    if (!inSlice(chunk.index, slice) || existsSync(markerFile(workdir, `count-${shardName(chunk.index)}`))) {
      progress.update(documents);
      continue;
    }
    // Copy into a buffer of its own so that it can be transferred, not cloned.
    const own = new Uint8Array(chunk.bytes.length);
    own.set(chunk.bytes);
    const task = { workdir, chunk: { ...chunk, bytes: own }, options: config.prepare };
    const { result } = await pool.submit<ShardStats>("count", task, [own.buffer]);
    pending.push(result);
    progress.update(documents);
  }
  await Promise.all(pending);
  progress.finish();
  const counts: ChunkCounts = { shards, documents, ...(skipped.documents > 0 ? { skipped } : {}) };
  await writeAtomic(chunksFile(workdir), JSON.stringify(counts) + "\n");
  return counts;
}
