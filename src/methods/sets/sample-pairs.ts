import { chunkCorpus, type ReadLimits } from "../../corpus/chunker.js";
import type { FeatureOptions } from "../../core/method-options.js";
import { joinScoredPairs, type ScoredPairs } from "../../eval/pairs-file.js";
import type { TaskPool } from "../../executor/in-process-pool.js";
import { concatF64, concatU32 } from "../../util/typed-arrays.js";
import type { MethodsTasks } from "./methods-entry.js";
import { sampleIndex, type SetSource } from "./sample-jaccard.js";
import { termSample, type TermChunkTask } from "./sample-term-cosine.js";

// The passes over the pool, apart from the tasks they run: the pool's table imports those.

/**
 * Exact Jaccard of every sampled document's set with every document's set of the corpus,
 * on the pool: a first pass picks the sampled sets, which are inverted (sampleIndex); a
 * second pass scores each shard's documents against that index. Memory: the sample's sets
 * and index, a shard's sets per worker and the pairs found. Returns each unordered pair
 * with a sampled document and Jaccard ≥ threshold once, as corpus ordinals a < b, in shard
 * order.
 */
export async function sampleJaccardPairs(sources: readonly SetSource[], sampled: Uint8Array, threshold: number, pool: TaskPool<MethodsTasks>): Promise<ScoredPairs> {
  const flags = new Uint8Array(new SharedArrayBuffer(sampled.length));
  flags.set(sampled);
  const parts = await Promise.all(sources.map((source) => pool.run("sampleSets", { source, sampled: flags })));
  const index = sampleIndex(concatU32(parts.map((p) => p.ordinals)), concatU32(parts.map((p) => p.lengths)), concatF64(parts.map((p) => p.values)));
  const scored = await Promise.all(sources.map((source) => pool.run("sampleJaccards", { source, sampled: flags, index, threshold })));
  return joinScoredPairs(scored);
}

/**
 * Exact cosine of the token-count vectors (simhash384's) of every sampled document with every
 * document of the corpus, reading the corpus twice on the pool (simhash384 keeps only the
 * hashes): a first pass picks the sampled vectors, which are inverted (termSample); a second
 * scores each chunk's documents against them. Memory: the sample's vectors and index, the
 * chunks in flight and the pairs found. Returns each unordered pair with a sampled document
 * and cosine ≥ threshold once, as corpus ordinals a < b, in chunk order.
 */
export async function sampleTermCosinePairs(inputs: readonly string[], chunkBytes: number, limits: ReadLimits, options: FeatureOptions, sampled: Uint8Array, threshold: number, pool: TaskPool<MethodsTasks>): Promise<ScoredPairs> {
  const flags = new Uint8Array(new SharedArrayBuffer(sampled.length));
  flags.set(sampled);
  // Each chunk's task, its bytes moved to the worker; `submit` starts the pass's task on it.
  async function overChunks<T>(submit: (task: TermChunkTask, moved: ArrayBuffer[]) => Promise<{ result: Promise<T> }>): Promise<T[]> {
    const results: Promise<T>[] = [];
    for await (const chunk of chunkCorpus(inputs, chunkBytes, limits)) {
      const own = new Uint8Array(chunk.bytes.length);
      own.set(chunk.bytes);
      results.push((await submit({ chunk: { ...chunk, bytes: Buffer.from(own.buffer) }, options, sampled: flags }, [own.buffer])).result);
    }
    return Promise.all(results);
  }
  const parts = await overChunks((task, moved) => pool.submit("sampleTermVectors", task, moved));
  const sample = termSample(concatU32(parts.map((p) => p.ordinals)), concatU32(parts.map((p) => p.lengths)), concatF64(parts.map((p) => p.terms)), concatF64(parts.map((p) => p.counts)));
  return joinScoredPairs(await overChunks((task, moved) => pool.submit("sampleTermCosines", { ...task, sample, threshold }, moved)));
}
