import type { TaskPool } from "../executor/in-process-pool.js";
import type * as countRowsTasks from "./count-rows-tasks.js";
import { CountRows, countRowWeights, shardCountRows, type CountRowsPart, type CountRowsTask } from "./count-rows.js";
import type { PrepareManifest } from "./prepare-manifest.js";
import type { VocabularyIndex } from "./vocabulary.js";
import { workdirCountsParts, type CountsPart } from "./workdir-vectors.js";

// Apart from count-rows.ts, whose task the pool runs: the pool's table (pleb's) imports it.
type CountRowsTasks = typeof countRowsTasks;

/**
 * The count rows of the flagged documents (`only`, a flag per corpus ordinal, shared) of a
 * prepared work directory: the vectors of loadWorkdirVectors, made on `pool` if given.
 * `repeated`: only the kept terms with df ≥ 2 get an entry and a rank (loadCountRowParts).
 */
export async function loadCountRows(workdir: string, prepared: PrepareManifest, only: Uint8Array, pool?: TaskPool<CountRowsTasks>, repeated = false): Promise<CountRows> {
  const { parts, factors } = await loadCountRowParts(workdir, prepared, only, pool, repeated);
  return new CountRows(parts, factors);
}

/**
 * loadCountRows as the parts CountRows is made of, with their weight factors. With
 * `repeated` (PLEB's verification) only vocab.zst's header is read and ranked
 * (signingIndex): a term not in it has df = 1 and counts in its row's norm alone, so the
 * cosine of two distinct documents has the same bits while the table, the factors and a
 * scratch slot per rank hold the repeated terms only (13.5 M instead of 228 M for
 * `--shingle-size 3` at 1 M documents). A row's cosine with itself is then below 1 when it
 * has such terms: the verifier never scores a document with itself.
 */
export async function loadCountRowParts(workdir: string, prepared: PrepareManifest, only: Uint8Array, pool?: TaskPool<CountRowsTasks>, repeated = false): Promise<{ parts: CountRowsPart[]; factors: Float64Array }> {
  const weights = countRowWeights(workdir, prepared, repeated);
  return { parts: await countRowParts(workdirCountsParts(workdir, 0, prepared.counts.shards), weights, only, pool), factors: weights.factors };
}

/**
 * countRowParts of the flagged documents (`only`, a flag per ordinal) reading only the counts
 * files that hold one: part k holds the `docs[k]` documents that follow part k − 1's.
 */
export function flaggedRowsLoader(parts: readonly CountsPart[], docs: readonly number[], weights: VocabularyIndex & { onceFactor?: number }, pool?: TaskPool<CountRowsTasks>): (only: Uint8Array) => Promise<CountRowsPart[]> {
  const starts = [0];
  for (const n of docs) starts.push(starts[starts.length - 1] + n);
  const flagged = (only: Uint8Array, k: number) => only.subarray(starts[k], starts[k + 1]).includes(1);
  return (only) => countRowParts(parts.filter((_, k) => flagged(only, k)), weights, only, pool);
}

/** The count rows of the flagged documents of any counts files (a run with --against: the indices' and the batch's), under `weights`, as parts (one per counts file): what CountRows is made of. */
export async function countRowParts(parts: readonly CountsPart[], { ranks, factors, onceFactor }: VocabularyIndex & { onceFactor?: number }, only: Uint8Array, pool?: TaskPool<CountRowsTasks>): Promise<CountRowsPart[]> {
  const shared = ranks.toShared();
  const tasks: CountRowsTask[] = parts.map((part) => ({ ...part, ranks: shared, factors, onceFactor, only }));
  return pool === undefined ? tasks.map(shardCountRows) : await Promise.all(tasks.map((task) => pool.run("countRows", task)));
}
