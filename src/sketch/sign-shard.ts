import type { ShardCounts } from "../features/count-shard.js";
import { NumberMap, type SharedNumberMap } from "../util/number-map.js";
import { readRunFileSync, writeRunFile } from "../runs/run-file.js";
import { compareSigRecords, type SigRecord } from "../runs/signature-record.js";
import { shardFile } from "../coordinator/workdir.js";
import { termVector, VectorCache, type VectorCacheParts } from "./random-vectors.js";
import { INT32_WEIGHT_LIMIT, wordsPerSignature } from "./signature.js";
import { Projections } from "./projections.js";

export interface SignTask {
  workdir: string;
  index: number;
  bits: number;
  seed: number;
  /** Term → rank in the kept vocabulary (vocabularyIndex). */
  ranks: SharedNumberMap;
  /** Weight factor (idf or 1) by rank, over a SharedArrayBuffer. */
  factors: Float64Array;
  /** Weight factor of a term not in `ranks` (signingIndex: df = 1), 0 to drop it. */
  onceFactor: number;
  /** Every factor is 1 (tf): weights are the term counts. */
  integerWeights: boolean;
  /** Vectors of the leading terms of the vocabulary: a term's slot is its rank. */
  cache: VectorCacheParts;
}

export interface SignStats {
  signed: number;
  /** Documents left without any kept term: they get no signature (an all-zero one would
   * pair every such document with every other). */
  empty: number;
}

/** Worker-local views of the shared tables, rebuilt only when the buffers change. */
let shared: { ranks: SharedNumberMap; table: NumberMap; cacheParts: VectorCacheParts; cache: VectorCache } | null = null;

function views(task: SignTask): { table: NumberMap; cache: VectorCache } {
  if (shared === null || shared.ranks.keys !== task.ranks.keys || shared.cacheParts.terms !== task.cache.terms) {
    shared = {
      ranks: task.ranks,
      table: NumberMap.fromShared(task.ranks),
      cacheParts: task.cache,
      cache: VectorCache.fromShared(task.cache),
    };
  }
  return shared;
}

/**
 * Pass 2 of the preparatory phase for one shard: weights from the stored term counts and
 * the shared vocabulary, a random-hyperplane signature per document, and the shard's
 * signatures written as a run sorted by signature. One hash lookup per term gives its rank,
 * hence its weight factor and its cache slot.
 */
export async function signShard(task: SignTask): Promise<SignStats> {
  const { table, cache } = views(task);
  const [counts] = readRunFileSync<ShardCounts>(shardFile(task.workdir, task.index, "counts"));
  const words = wordsPerSignature(task.bits);
  const records: SigRecord[] = [];
  let empty = 0;
  let at = 0;
  const sum = Projections.lease(cache.memory);
  try {
    for (let d = 0; d < counts.ordinals.length; d++) {
      const end = at + counts.lengths[d];
      sum.reset(task.integerWeights && weightSum(counts.counts, at, end) <= INT32_WEIGHT_LIMIT);
      let used = 0;
      for (; at < end; at++) {
        const term = counts.terms[at];
        const rank = table.get(term);
        const factor = rank === undefined ? task.onceFactor : task.factors[rank];
        if (factor === 0) continue;
        if (rank === undefined || !cache.isFilled(rank)) {
          termVector(task.seed, term, sum.staging);
          sum.addStaged(counts.counts[at] * factor);
        } else sum.addSlot(rank, counts.counts[at] * factor);
        used++;
      }
      if (used === 0) {
        empty++;
        continue;
      }
      const s = new Uint32Array(words);
      sum.signBits(s, 0);
      records.push({ d: counts.ordinals[d], s });
    }
  } finally {
    sum.release();
  }
  records.sort(compareSigRecords);
  await writeRunFile(shardFile(task.workdir, task.index, "run"), records);
  return { signed: records.length, empty };
}

/** Σ counts[from … to): a bound of a document's integer weights. */
function weightSum(counts: ArrayLike<number>, from: number, to: number): number {
  let total = 0;
  for (let i = from; i < to; i++) total += counts[i];
  return total;
}

export interface FillTask {
  cache: VectorCacheParts;
  from: number;
  to: number;
}

/** Computes a slot range of the shared vector cache. */
export function fillCache(task: FillTask): void {
  VectorCache.fromShared(task.cache).fill(task.from, task.to);
}
