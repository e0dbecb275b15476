import type { ShardCounts } from "../features/count-shard.js";
import { vocabularyIndex, type KeptTerms, type VocabularyIndex } from "../features/vocabulary.js";
import type { PrepareManifest } from "../coordinator/prepare-manifest.js";
import type { WorkerPool } from "../coordinator/pool.js";
import { shardFile, vocabularyFile } from "../coordinator/workdir.js";
import { readRunFileSync } from "../runs/run-file.js";
import { NumberMap, type SharedNumberMap } from "../util/number-map.js";
import type { SparseRows } from "./sparse-rows.js";

/** One shard's rows, already scaled to unit length, in exact-size arrays. */
export interface RowsPart {
  ordinals: Uint32Array;
  lengths: Uint32Array;
  cols: Uint32Array;
  vals: Float64Array;
}

/** A shard's term counts file, and what to add to its ordinals (a saved index's place in a run with --against). */
export interface CountsPart {
  path: string;
  offset: number;
}

/** What the rows of one shard need: the kept vocabulary's ranks and factors (vocabularyIndex), shared. */
export interface ShardRowsTask extends CountsPart {
  ranks: SharedNumberMap;
  factors: Float64Array;
  /** A flag per corpus ordinal (after `offset`): keep only those documents' rows. */
  only?: Uint8Array;
}

/** The rank table of a worker, rebuilt once from the shared buffers. */
let table: { ranks: SharedNumberMap; map: NumberMap } | null = null;

/**
 * The unit rows of one shard's documents (see loadWorkdirVectors): tf(t, d) · factor(t) over
 * the kept terms of factor ≠ 0, each row divided by its L2 norm. A pool task (`rows`).
 */
export function shardRows(task: ShardRowsTask): RowsPart {
  if (table === null || table.ranks.keys !== task.ranks.keys) table = { ranks: task.ranks, map: NumberMap.fromShared(task.ranks) };
  const rank = table.map;
  const { factors, only, offset } = task;
  const [counts] = readRunFileSync<ShardCounts>(task.path);
  const ordinals = new Uint32Array(counts.ordinals.length);
  const lengths = new Uint32Array(counts.ordinals.length);
  const cols = new Uint32Array(counts.terms.length);
  const vals = new Float64Array(counts.terms.length);
  let rows = 0;
  let k = 0;
  let at = 0;
  for (let d = 0; d < counts.ordinals.length; d++) {
    const end = at + counts.lengths[d];
    if (only !== undefined && only[counts.ordinals[d] + offset] === 0) {
      at = end;
      continue;
    }
    const before = k;
    let sq = 0;
    for (; at < end; at++) {
      const r = rank.get(counts.terms[at]);
      if (r === undefined || factors[r] === 0) continue;
      const w = counts.counts[at] * factors[r];
      cols[k] = r;
      vals[k++] = w;
      sq += w * w;
    }
    if (k === before) continue;
    const norm = Math.sqrt(sq);
    for (let x = before; x < k; x++) vals[x] /= norm;
    ordinals[rows] = counts.ordinals[d] + offset;
    lengths[rows++] = k - before;
  }
  return { ordinals: ordinals.slice(0, rows), lengths: lengths.slice(0, rows), cols: cols.slice(0, k), vals: vals.slice(0, k) };
}

function sharedU32(n: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(4 * n));
}

/** The shards' parts as one SparseRows in SharedArrayBuffers; each part is released once copied. */
function joinParts(parts: (RowsPart | undefined)[], columns: number): SparseRows {
  let rows = 0;
  let entries = 0;
  for (const p of parts) {
    rows += (p as RowsPart).ordinals.length;
    entries += (p as RowsPart).cols.length;
  }
  const out: SparseRows = { ordinals: sharedU32(rows), rowPtr: sharedU32(rows + 1), cols: sharedU32(entries), vals: new Float64Array(new SharedArrayBuffer(8 * entries)), columns };
  let row = 0;
  let k = 0;
  for (let s = 0; s < parts.length; s++) {
    const part = parts[s] as RowsPart;
    parts[s] = undefined;
    out.ordinals.set(part.ordinals, row);
    out.cols.set(part.cols, k);
    out.vals.set(part.vals, k);
    for (const length of part.lengths) {
      k += length;
      out.rowPtr[++row] = k;
    }
  }
  return out;
}

function shardTasks(workdir: string, prepared: PrepareManifest, only?: Uint8Array): { tasks: ShardRowsTask[]; columns: number } {
  const [kept] = readRunFileSync<KeptTerms>(vocabularyFile(workdir));
  const parts = Array.from({ length: prepared.counts.shards }, (_, shard) => ({ path: shardFile(workdir, shard, "counts"), offset: 0 }));
  return { tasks: partTasks(parts, vocabularyIndex(kept, prepared.counts.documents, prepared.options.weighting), only), columns: kept.terms.length };
}

function partTasks(parts: readonly CountsPart[], { ranks, factors }: VocabularyIndex, only?: Uint8Array): ShardRowsTask[] {
  const shared = ranks.toShared();
  return parts.map((part) => ({ ...part, ranks: shared, factors, only }));
}

/** The unit rows of the documents of `parts` under `weights` (their columns are its ranks), made on the pool: loadWorkdirVectorsOnPool over any shards. */
export async function loadRowsOnPool(parts: readonly CountsPart[], weights: VocabularyIndex, pool: WorkerPool, only?: Uint8Array): Promise<SparseRows> {
  const tasks = partTasks(parts, weights, only);
  return joinParts(await Promise.all(tasks.map((task) => pool.run<RowsPart>("rows", task))), weights.factors.length);
}

/**
 * The document vectors of a prepared work directory, exactly as `prepare` signed them:
 * only the kept vocabulary (vocab.zst, already reduced by min/max df) counts, a component is
 * tf(t, d) · factor(t) with factor = ln(N / df(t)) under tfidf (N = all documents of the
 * corpus) or 1 under tf, terms of factor 0 are left out, and a document with no remaining
 * term has no vector (prepare gives it no signature). Term indices are ranks in vocab.zst
 * (decreasing df). Rows are unit rows (as `unitRows` makes them) in SharedArrayBuffers.
 *
 * `only` (a flag per corpus ordinal) keeps the rows of those documents alone (PLEB's
 * verification needs one document per distinct signature). Memory: 12 bytes per kept
 * (document, term), at most twice that while loading (the shards' parts, then the rows).
 */
export function loadWorkdirVectors(workdir: string, prepared: PrepareManifest, only?: Uint8Array): SparseRows {
  const { tasks, columns } = shardTasks(workdir, prepared, only);
  return joinParts(tasks.map(shardRows), columns);
}

/** loadWorkdirVectors with the shards' rows made on the pool (its `rows` task). */
export async function loadWorkdirVectorsOnPool(workdir: string, prepared: PrepareManifest, pool: WorkerPool, only?: Uint8Array): Promise<SparseRows> {
  const { tasks, columns } = shardTasks(workdir, prepared, only);
  return joinParts(await Promise.all(tasks.map((task) => pool.run<RowsPart>("rows", task))), columns);
}

/** The kept vocabulary's rank of each term hash and its weight factor (vocabularyIndex). */
export interface VectorWeights {
  rank: NumberMap;
  factor: Float64Array;
}

export function workdirWeights(workdir: string, prepared: PrepareManifest): VectorWeights {
  const [kept] = readRunFileSync<KeptTerms>(vocabularyFile(workdir));
  const { ranks, factors } = vocabularyIndex(kept, prepared.counts.documents, prepared.options.weighting);
  return { rank: ranks, factor: factors };
}

/**
 * Visits the vectors of shards `from`..`to` − 1 in corpus order, unnormalised (the
 * components shardRows scales), in scratch arrays valid only during the call; one shard's
 * counts are in memory at a time.
 */
export function forEachWorkdirVector(
  workdir: string,
  weights: VectorWeights,
  from: number,
  to: number,
  visit: (ordinal: number, cols: Uint32Array, vals: Float64Array, length: number) => void,
): void {
  const { rank, factor } = weights;
  let cols = new Uint32Array(1024);
  let vals = new Float64Array(1024);
  for (let s = from; s < to; s++) {
    const [counts] = readRunFileSync<ShardCounts>(shardFile(workdir, s, "counts"));
    let at = 0;
    for (let d = 0; d < counts.ordinals.length; d++) {
      const end = at + counts.lengths[d];
      if (cols.length < end - at) {
        cols = new Uint32Array(end - at);
        vals = new Float64Array(end - at);
      }
      let length = 0;
      for (; at < end; at++) {
        const r = rank.get(counts.terms[at]);
        if (r === undefined || factor[r] === 0) continue;
        cols[length] = r;
        vals[length++] = counts.counts[at] * factor[r];
      }
      if (length > 0) visit(counts.ordinals[d], cols, vals, length);
    }
  }
}
