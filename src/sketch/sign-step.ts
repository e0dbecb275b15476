import { readChunkCounts } from "../features/count-step.js";
import { readKeptTerms, readVocabularyHeader, signingIndex, type KeptTerms, type VocabularyIndex } from "../features/vocabulary.js";
import { accumulateKernelStatus } from "./accumulate-wasm.js";
import { int8DrawKernelStatus } from "./int8-draw.js";
import { factorScale } from "./signature.js";
import { VectorCache } from "./random-vectors.js";
import { SigningTerms } from "./signing-terms.js";
import type { SignStats, SignTask } from "./sign-shard.js";
import type { TaskPool } from "../executor/in-process-pool.js";
import type { PrepareTasks } from "./prepare-entry.js";
import type { Reporter } from "../executor/progress.js";
import type { RunConfig } from "../workdir/run-config.js";
import { inSlice, shardName, vocabularyFile, writeKernelsMarker, type Slice } from "../workdir/layout.js";
import { markerStats, runTasks, type StepTask } from "../executor/tasks.js";
import { requireMarker } from "../workdir/require.js";
import type { VocabularyStats } from "../features/vocabulary-step.js";

/**
 * Precomputed vectors of the most frequent terms, shared by all workers: 393,216 vectors of
 * 1024 bits (1.5 GiB float32, 384 MiB int8), every repeated term of a vocabulary of that size. An
 * uncached term costs a fresh termVector (float32: ≈ 1300 generator steps and 512 logarithms,
 * 10–20 µs; int8: 1.2 µs, int8-draw.ts) per document it occurs in, against one accumulate
 * (< 1 µs) when cached; with a 1 GiB float32 cache the 38,000 uncached repeated terms of a
 * 300,000-term vocabulary still took a tenth of the sign pass.
 */
const VECTOR_CACHE_COMPONENTS = 393_216 * 1024;

/** Number of leading terms with df ≥ 2 in a list ordered by decreasing df. */
function repeatedTerms(dfs: Uint32Array): number {
  let n = 0;
  while (n < dfs.length && dfs[n] >= 2) n++;
  return n;
}

/** The shared tables of a slice's sign tasks. */
interface SignTables {
  terms: SigningTerms;
  cache: VectorCache;
}

/**
 * Weight factors from the kept vocabulary and the vectors of its frequent terms computed in
 * shared memory on the pool; what runs the accumulation is left as the slice's kernels marker
 * (and told on stderr if it is the slower TypeScript loop).
 */
async function signTables(workdir: string, config: RunConfig, slice: Slice, pool: TaskPool<PrepareTasks>, reporter: Reporter, weigh?: (kept: KeptTerms) => VocabularyIndex): Promise<SignTables> {
  const vocabulary = await requireMarker<VocabularyStats>(workdir, "vocabulary", "the vocabulary step");
  const { bits, seed, weighting, projection } = config.prepare;
  const path = vocabularyFile(workdir);
  const header = readVocabularyHeader(path);
  // Without weigh, only the header is read: the repeated terms are looked up, a term not in
  // the table has df = 1. weigh (--against) ranks every kept term of the batch.
  const terms = weigh !== undefined ? { ...weigh(readKeptTerms(path)), onceFactor: 0 } : signingIndex(header.kept, header, vocabulary.documents, weighting);
  const kept = header.kept;
  // Terms with df 1 are not cached: their one vector costs the same computed in the sign pass.
  const cacheSize = Math.min(repeatedTerms(kept.dfs), Math.floor(VECTOR_CACHE_COMPONENTS / bits));
  const cache = VectorCache.build(projection, seed, bits, kept.terms.subarray(0, cacheSize), pool.threads);
  const warn = (m: string) => reporter.info(m);
  await writeKernelsMarker(workdir, "sign", slice, { accumulate: accumulateKernelStatus(cache.memory, warn), ...(projection === "int8" ? { "int8-draw": int8DrawKernelStatus(warn) } : {}) });
  const step = Math.ceil(cacheSize / pool.threads);
  await Promise.all(
    Array.from({ length: pool.threads }, (_, w) =>
      pool.run("fill", { cache: cache.toShared(), from: Math.min(cacheSize, w * step), to: Math.min(cacheSize, (w + 1) * step) }),
    ),
  );
  // After the fill: a term's slot is known to hold its vector.
  return { terms: SigningTerms.build(terms.ranks, terms.factors, terms.onceFactor, factorScale(projection, weighting), cache), cache };
}

/**
 * Pass 2 for the shards of one slice: one task per shard, run by the executor (runTasks),
 * that writes the shard's signatures as a sorted run; shards already signed are skipped.
 * The shared tables (signTables) are made when the first task starts, so a slice with
 * nothing left to sign costs nothing. `weigh`: the ranks and factors of the kept vocabulary
 * when they are not its own (--against: the indices' frozen weights,
 * SupplementedCorpus.weights); its leading ranks must be the kept terms' (the cache's slots).
 */
export async function signStep(
  workdir: string,
  config: RunConfig,
  slice: Slice,
  pool: TaskPool<PrepareTasks>,
  reporter: Reporter,
  weigh?: (kept: KeptTerms) => VocabularyIndex,
): Promise<void> {
  const { shards } = await readChunkCounts(workdir);
  const indices = Array.from({ length: shards }, (_, i) => i).filter((i) => inSlice(i, slice));
  const { bits, seed } = config.prepare;
  let tables: Promise<SignTables> | undefined;
  const progress = reporter.progress("signatures", "shards", indices.length);
  let signed = 0;
  const tasks = indices.map((index): StepTask<SignStats> => {
    const marker = `sign-${shardName(index)}`;
    return {
      marker,
      start: async () => {
        const { terms, cache } = await (tables ??= signTables(workdir, config, slice, pool, reporter, weigh));
        const task: SignTask = { workdir, index, bits, seed, terms: terms.toShared(), cache: cache.toShared() };
        const { result } = await pool.submit("sign", task);
        return { result: result.then((s) => (progress.update(++signed), s)) };
      },
      load: async () => (progress.update(++signed), await markerStats<SignStats>(workdir, marker)()),
      stats: (s) => s,
    };
  });
  await runTasks(workdir, tasks);
  progress.finish();
}
