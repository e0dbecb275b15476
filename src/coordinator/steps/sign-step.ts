import { existsSync } from "node:fs";
import { signingIndex, vocabularyIndex, type KeptTerms, type RepeatedTerms, type VocabularyIndex } from "../../features/vocabulary.js";
import { readRunFileSync } from "../../runs/run-file.js";
import { accumulateKernelStatus } from "../../sketch/accumulate-wasm.js";
import { VectorCache } from "../../sketch/random-vectors.js";
import type { SignStats } from "../../sketch/sign-shard.js";
import type { KernelStatus } from "../../util/wasm-kernel.js";
import type { WorkerPool } from "../pool.js";
import type { Reporter } from "../progress.js";
import type { RunConfig } from "../run-config.js";
import { completedTasks, inSlice, markerFile, readMarker, shardName, vocabularyFile, writeMarker, type Slice } from "../workdir.js";
import { readChunkCounts, requireMarker } from "./require.js";
import type { VocabularyStats } from "./vocabulary-step.js";

/**
 * Precomputed vectors of the most frequent terms, shared by all workers: 393,216 vectors of
 * 1024 bits (1.5 GiB float32, 384 MiB int8), every repeated term of a vocabulary of that size. An
 * uncached term costs a fresh termVector (≈ 1300 generator steps and 512 logarithms,
 * 10–20 µs) per document it occurs in, against one accumulate (< 1 µs) when cached; with a
 * 1 GiB cache the 38,000 uncached repeated terms of a 300,000-term vocabulary still took a
 * tenth of the sign pass.
 */
const VECTOR_CACHE_COMPONENTS = 393_216 * 1024;

/** Markers of what ran each kernel of a slice's sign pass: `kernels-sign-<index>-of-<count>`. */
const KERNELS_MARKER = "kernels-sign-";

/**
 * What ran each kernel of the sign pass, for prepare.json (`kernels`): "webassembly" unless a
 * slice fell back (then that slice's reason); undefined when no slice recorded it.
 */
export async function signKernels(workdir: string): Promise<Record<string, KernelStatus> | undefined> {
  let out: Record<string, KernelStatus> | undefined;
  for (const task of (await completedTasks(workdir)).filter((n) => n.startsWith(KERNELS_MARKER)).sort()) {
    for (const [kernel, status] of Object.entries((await readMarker<Record<string, KernelStatus>>(workdir, task)) ?? {})) {
      out ??= {};
      if (out[kernel] === undefined || out[kernel] === "webassembly") out[kernel] = status;
    }
  }
  return out;
}

/** Number of leading terms with df ≥ 2 in a list ordered by decreasing df. */
function repeatedTerms(dfs: Uint32Array): number {
  let n = 0;
  while (n < dfs.length && dfs[n] >= 2) n++;
  return n;
}

/**
 * Pass 2 for the shards of one slice: weight factors from the kept vocabulary, the vectors
 * of frequent terms precomputed in shared memory, then one task per shard that writes its
 * signatures as a sorted run and leaves its marker. Shards already signed are skipped. What
 * ran the accumulation (signKernels) is told on stderr if it is the slower TypeScript loop.
 * `weigh`: the ranks and factors of the kept vocabulary when they are not its own
 * (--against: the indices' frozen weights, SupplementedCorpus.weights); its leading ranks
 * must be the kept terms' (the cache's slots).
 */
export async function signStep(
  workdir: string,
  config: RunConfig,
  slice: Slice,
  pool: WorkerPool,
  reporter: Reporter,
  weigh?: (kept: KeptTerms) => VocabularyIndex,
): Promise<void> {
  const vocabulary = await requireMarker<VocabularyStats>(workdir, "vocabulary", "the vocabulary step");
  const { shards } = await readChunkCounts(workdir);
  const todo: number[] = [];
  for (let i = 0; i < shards; i++) {
    if (inSlice(i, slice) && !existsSync(markerFile(workdir, `sign-${shardName(i)}`))) todo.push(i);
  }
  if (todo.length === 0) return;
  const { bits, seed, weighting, projection } = config.prepare;
  const [kept, repeated] = readRunFileSync<KeptTerms | RepeatedTerms>(vocabularyFile(workdir)) as [KeptTerms, RepeatedTerms?];
  // Without weigh, only the repeated terms are looked up (a term not in the table has df = 1);
  // vocabularies written before RepeatedTerms have every kept term in the table.
  const terms =
    weigh !== undefined ? { ...weigh(kept), onceFactor: 0 }
    : repeated !== undefined ? signingIndex(kept, repeated, vocabulary.documents, weighting)
    : { ...vocabularyIndex(kept, vocabulary.documents, weighting), onceFactor: 0 };
  // Terms with df 1 are not cached: their one vector costs the same computed in the sign pass.
  const cacheSize = Math.min(repeatedTerms(kept.dfs), Math.floor(VECTOR_CACHE_COMPONENTS / bits));
  const cache = VectorCache.build(projection, seed, bits, kept.terms.subarray(0, cacheSize), pool.threads);
  await writeMarker(workdir, `${KERNELS_MARKER}${slice.index}-of-${slice.count}`, { accumulate: accumulateKernelStatus(cache.memory, (m) => reporter.info(m)) });
  const step = Math.ceil(cacheSize / pool.threads);
  await Promise.all(
    Array.from({ length: pool.threads }, (_, w) =>
      pool.run("fill", { cache: cache.toShared(), from: Math.min(cacheSize, w * step), to: Math.min(cacheSize, (w + 1) * step) }),
    ),
  );
  const progress = reporter.progress("signatures", "shards", todo.length);
  const pending: Promise<SignStats>[] = [];
  let signed = 0;
  for (const index of todo) {
    const task = { workdir, index, bits, seed, ranks: terms.ranks.toShared(), factors: terms.factors, onceFactor: terms.onceFactor, integerWeights: weighting === "tf", cache: cache.toShared() };
    const { result } = await pool.submit<SignStats>("sign", task);
    pending.push(result.then((s) => (progress.update(++signed), s)));
  }
  await Promise.all(pending);
  progress.finish();
}
