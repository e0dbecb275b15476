import type { TaskPool } from "../../executor/in-process-pool.js";
import type { PrepareManifest } from "../../features/prepare-manifest.js";
import { unitRows } from "../../features/sparse-rows.js";
import { concatF64, concatU32 } from "../../util/typed-arrays.js";
import { joinScoredPairs, type ScoredPairs } from "../pairs-file.js";
import type { ReferenceTasks } from "./reference-entry.js";
import { sampleIndex, type ShardTask } from "./sample-cosine.js";

/**
 * Exact cosine of every sampled document with every document of a prepared work directory
 * (the thesis's `similarity` with a sample_list), streaming, on the pool: a first pass picks
 * the sampled vectors, which are indexed by term (sampleIndex); a second pass scores each
 * corpus vector against that index. Memory: the sample's vectors, a shard of counts per worker and the
 * pairs found — never the corpus's vectors. Returns each unordered pair with a sampled
 * document and cosine ≥ threshold once, as corpus ordinals a < b, in shard order.
 */
export async function sampleCosines(workdir: string, prepared: PrepareManifest, sampled: Uint8Array, threshold: number, pool: TaskPool<ReferenceTasks>): Promise<ScoredPairs> {
  const shared = new Uint8Array(new SharedArrayBuffer(sampled.length));
  shared.set(sampled);
  const shards = prepared.counts.shards;
  const step = Math.max(1, Math.ceil(shards / (pool.threads * 4)));
  const tasks: ShardTask[] = [];
  for (let from = 0; from < shards; from += step) tasks.push({ workdir, prepared, from, to: Math.min(shards, from + step), sampled: shared });
  const parts = await Promise.all(tasks.map((t) => pool.run("sampleVectors", t)));
  const lengths = concatU32(parts.map((p) => p.lengths));
  const rowPtr = new Uint32Array(lengths.length + 1);
  for (let r = 0; r < lengths.length; r++) rowPtr[r + 1] = rowPtr[r] + lengths[r];
  const cols = concatU32(parts.map((p) => p.cols));
  // The index spans the terms of the sample only; other terms score nothing.
  const columns = cols.reduce((m, t) => Math.max(m, t + 1), 0);
  const sample = unitRows(concatU32(parts.map((p) => p.ordinals)), rowPtr, cols, concatF64(parts.map((p) => p.vals)), columns);
  const index = sampleIndex(sample, threshold);
  const scored = await Promise.all(tasks.map((t) => pool.run("sampleScores", { ...t, ...index, threshold })));
  return joinScoredPairs(scored);
}
