import { rm } from "node:fs/promises";
import { join } from "node:path";
import { chunkCorpus } from "../corpus/chunker.js";
import { checkReadable } from "../corpus/open-input.js";
import { addWarnings, emptyWarnings, type ReaderWarnings } from "../corpus/vertical.js";
import type { ShardStats } from "../features/count-shard.js";
import { mergeDocumentFrequencies, termWeights } from "../features/vocabulary.js";
import { writeSignatureStore } from "../runs/signature-store.js";
import { encodeRecords } from "../runs/run-file.js";
import { VectorCache } from "../sketch/random-vectors.js";
import type { SignStats } from "../sketch/sign-shard.js";
import { wordsPerSignature } from "../sketch/signature.js";
import { DEFAULT_CHUNK_BYTES, type ExecutionOptions, type PrepareOptions } from "../options.js";
import { VertdupError } from "../util/errors.js";
import { packageVersion } from "../util/package-info.js";
import { writeAtomic } from "../util/atomic.js";
import { WorkerPool } from "./pool.js";
import type { Reporter } from "./progress.js";
import { createWorkdir, shardFile, vocabularyFile } from "./workdir.js";
import { PhaseClock, type PhaseTiming } from "./phase-clock.js";

/** What `prepare` leaves in `<workdir>/prepare.json` for the later phases and the manifest. */
export interface PrepareManifest {
  version: string;
  inputs: string[];
  options: PrepareOptions;
  counts: {
    shards: number;
    documents: number;
    tokens: number;
    keptTokens: number;
    terms: number;
    keptTerms: number;
    emptyDocuments: number;
    signedDocuments: number;
    distinctSignatures: number;
  };
  warnings: ReaderWarnings;
  phases: Record<string, PhaseTiming>;
}

export const PREPARE_MANIFEST = "prepare.json";

/**
 * Memory for precomputed vectors of the most frequent terms, shared by all workers: 1 GiB
 * holds 262,144 vectors of 1024 bits. An uncached term costs a fresh termVector (≈ 1300
 * generator steps and 512 logarithms, ~10 µs) per document it occurs in, against one
 * accumulate (~1 µs) when cached; that dominated the sign pass on Zipfian corpora.
 */
const VECTOR_CACHE_BYTES = 1 << 30;

/**
 * The preparatory phase: corpus → term counts and df per shard (pass 1) → vocabulary →
 * signatures per shard as sorted runs (pass 2) → merged signature store.
 */
export async function prepare(
  inputs: readonly string[],
  workdir: string,
  options: PrepareOptions,
  exec: ExecutionOptions,
  reporter: Reporter,
): Promise<PrepareManifest> {
  wordsPerSignature(options.bits);
  for (const input of inputs) await checkReadable(input);
  if (inputs.filter((i) => i === "-").length > 1) throw new VertdupError("standard input (-) can be given only once");
  await createWorkdir(workdir);
  const clock = new PhaseClock();
  const pool = new WorkerPool("prepare", exec.workers);
  try {
    clock.start("count");
    const shardStats = await countPass(inputs, workdir, options, exec.chunkBytes ?? DEFAULT_CHUNK_BYTES, pool, reporter);
    clock.stop("count");
    const documents = shardStats.reduce((n, s) => n + s.docs, 0);
    if (documents === 0) throw new VertdupError(`${inputs.join(", ")}: the corpus has no documents`);
    const warnings = emptyWarnings();
    for (const s of shardStats) addWarnings(warnings, s.warnings);

    clock.start("vocabulary");
    const df = mergeDocumentFrequencies(workdir, shardStats.length);
    const weights = termWeights(df, documents, options);
    await writeAtomic(vocabularyFile(workdir), encodeRecords([weights.byDf]));
    // Terms with df 1 are not cached: their one vector costs the same computed in the sign pass.
    const cacheSize = Math.min(repeatedTerms(weights.byDf.dfs), Math.floor(VECTOR_CACHE_BYTES / (options.bits * 4)));
    const cache = VectorCache.build(options.seed, options.bits, weights.byDf.terms.subarray(0, cacheSize));
    const step = Math.ceil(cacheSize / exec.workers);
    await Promise.all(
      Array.from({ length: exec.workers }, (_, w) =>
        pool.run("fill", { cache: cache.toShared(), from: Math.min(cacheSize, w * step), to: Math.min(cacheSize, (w + 1) * step) }),
      ),
    );
    clock.stop("vocabulary");
    reporter.info(`vocabulary: ${df.size} terms, ${weights.table.size} kept (${weights.dropped} outside the df limits)`);

    clock.start("sign");
    const signProgress = reporter.progress("signatures", "shards", shardStats.length);
    const pending: Promise<SignStats>[] = [];
    let signedShards = 0;
    for (let index = 0; index < shardStats.length; index++) {
      const task = { workdir, index, bits: options.bits, seed: options.seed, weights: weights.table.toShared(), cache: cache.toShared() };
      const { result } = await pool.submit<SignStats>("sign", task);
      pending.push(result.then((s) => (signProgress.update(++signedShards), s)));
    }
    const signStats = await Promise.all(pending);
    signProgress.finish();
    clock.stop("sign");

    clock.start("merge");
    const runPaths = shardStats.map((_, i) => shardFile(workdir, i, "run"));
    const scratch = (level: number, group: number) => join(workdir, "runs", `merge-${level}-${group}.run.zst`);
    const store = await writeSignatureStore(workdir, runPaths, scratch);
    await rm(join(workdir, "runs"), { recursive: true, force: true });
    clock.stop("merge");

    const manifest: PrepareManifest = {
      version: packageVersion(),
      inputs: [...inputs],
      options,
      counts: {
        shards: shardStats.length,
        documents,
        tokens: shardStats.reduce((n, s) => n + s.tokens, 0),
        keptTokens: shardStats.reduce((n, s) => n + s.keptTokens, 0),
        terms: df.size,
        keptTerms: weights.table.size,
        emptyDocuments: signStats.reduce((n, s) => n + s.empty, 0),
        signedDocuments: store.documents,
        distinctSignatures: store.distinct,
      },
      warnings,
      phases: clock.timings(),
    };
    await writeAtomic(join(workdir, PREPARE_MANIFEST), JSON.stringify(manifest, null, 2) + "\n");
    return manifest;
  } finally {
    await pool.close();
  }
}

/** Number of leading terms with df ≥ 2 in a list ordered by decreasing df. */
function repeatedTerms(dfs: Uint32Array): number {
  let n = 0;
  while (n < dfs.length && dfs[n] >= 2) n++;
  return n;
}

async function countPass(
  inputs: readonly string[],
  workdir: string,
  options: PrepareOptions,
  chunkBytes: number,
  pool: WorkerPool,
  reporter: Reporter,
): Promise<ShardStats[]> {
  const progress = reporter.progress("reading", "docs");
  const pending: Promise<ShardStats>[] = [];
  let docs = 0;
  for await (const chunk of chunkCorpus(inputs, chunkBytes)) {
    const bytes = chunk.bytes;
    // Copy into a buffer of its own so that it can be transferred, not cloned.
    const own = new Uint8Array(bytes.length);
    own.set(bytes);
    const task = { workdir, chunk: { ...chunk, bytes: own }, options };
    const { result } = await pool.submit<ShardStats>("count", task, [own.buffer]);
    pending.push(result.then((s) => (progress.update((docs += s.docs)), s)));
  }
  const stats = await Promise.all(pending);
  progress.finish();
  return stats;
}
