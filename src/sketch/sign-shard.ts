import type { ShardCounts } from "../features/count-shard.js";
import { readRunFileSync, writeRunFile } from "../util/run-file.js";
import { compareSigRecords, type SigRecord } from "./signature-record.js";
import { shardFile } from "../workdir/layout.js";
import { termVector, VectorCache, type VectorCacheParts } from "./random-vectors.js";
import { EXACT_WEIGHT_LIMIT, INT32_WEIGHT_LIMIT, wordsPerSignature } from "./signature.js";
import { blockTakes, Projections } from "./projections.js";
import { SigningTerms, type SigningTermsParts } from "./signing-terms.js";

export interface SignTask {
  workdir: string;
  index: number;
  bits: number;
  seed: number;
  /**
   * Term → cache slot and weight factor (SigningTerms of the kept vocabulary), the factor of a
   * term not in it, and the scale (signature.ts factorScale): > 0, integer weights
   * count·round(factor·scale), summed exactly (int8 vectors); 0, real weights count·factor,
   * summed in float64 (float32 vectors).
   */
  terms: SigningTermsParts;
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
let shared: { terms: SigningTermsParts; table: SigningTerms; cacheParts: VectorCacheParts; cache: VectorCache } | null = null;

function views(task: SignTask): { table: SigningTerms; cache: VectorCache } {
  if (shared === null || shared.terms.entries !== task.terms.entries || shared.cacheParts.terms !== task.cache.terms) {
    shared = {
      terms: task.terms,
      table: SigningTerms.fromShared(task.terms),
      cacheParts: task.cache,
      cache: VectorCache.fromShared(task.cache),
    };
  }
  return shared;
}

/** Per term of a document: its cache slot (−1: computed afresh) and weight (0: dropped). */
let slots = new Int32Array(1024);
let weights = new Float64Array(1024);

/**
 * Pass 2 of the preparatory phase for one shard: weights from the stored term counts and
 * the shared vocabulary, a random-hyperplane signature per document, and the shard's
 * signatures written as a run sorted by signature. One hash lookup per term gives its weight
 * factor and its cache slot; the document's weights are known before its
 * sums start, as their total chooses int32 or float64 sums for integer weights. Documents with
 * int32 sums are signed in blocks where the kernels allow (Projections.queue): their cached
 * terms with int16 weights there, the others first into sums the block starts from.
 */
export async function signShard(task: SignTask): Promise<SignStats> {
  const { table, cache } = views(task);
  const [counts] = readRunFileSync<ShardCounts>(shardFile(task.workdir, task.index, "counts"));
  const words = wordsPerSignature(task.bits);
  const integer = task.terms.scale > 0;
  const onceFactor = table.onceFactor;
  const records: SigRecord[] = [];
  let empty = 0;
  let at = 0;
  const sum = Projections.lease(cache.memory);
  const blocks = integer && sum.blocks;
  const signed = (d: number, s: Uint32Array) => void records.push({ d, s });
  try {
    for (let d = 0; d < counts.ordinals.length; d++) {
      const length = counts.lengths[d];
      if (length > slots.length) {
        slots = new Int32Array(2 * length);
        weights = new Float64Array(2 * length);
      }
      let total = 0;
      let used = 0;
      // Terms a block takes (cached, int16 weight) and the others (with a weight).
      let blocked = 0;
      let others = 0;
      for (let i = 0; i < length; i++) {
        const e = table.find(counts.terms[at + i]);
        const weight = counts.counts[at + i] * (e < 0 ? onceFactor : table.factor(e));
        const slot = e < 0 ? -1 : table.slot(e);
        slots[i] = slot;
        weights[i] = weight;
        total += weight;
        if (weight !== 0) used++;
        if (blockTakes(slot, weight)) blocked++;
        else if (weight !== 0) others++;
      }
      if (integer && total > EXACT_WEIGHT_LIMIT) throw new RangeError(`document ${counts.ordinals[d]}: its integer weights sum to ${total}, beyond exact float64 sums of int8 projections`);
      const int32 = integer && total <= INT32_WEIGHT_LIMIT;
      sum.reset(int32);
      if (int32 && blocks && used > 0) {
        for (let i = 0; others > 0 && i < length; i++) {
          const weight = weights[i];
          const slot = slots[i];
          if (weight === 0 || blockTakes(slot, weight)) continue;
          if (slot < 0) {
            termVector(task.seed, counts.terms[at + i], sum.staging);
            sum.addStaged(weight);
          } else sum.addSlot(slot, weight);
        }
        const ordinal = counts.ordinals[d];
        let queued = sum.queue(ordinal, slots, weights, length, blocked, others > 0);
        if (!queued) {
          sum.signQueued(signed);
          queued = sum.queue(ordinal, slots, weights, length, blocked, others > 0);
        }
        if (!queued) {
          // Too large for a block: its other terms too one by one.
          for (let i = 0; i < length; i++) {
            const weight = weights[i];
            if (blockTakes(slots[i], weight)) sum.addSlot(slots[i], weight);
          }
          const s = new Uint32Array(words);
          sum.signBits(s, 0);
          records.push({ d: ordinal, s });
        }
        at += length;
        continue;
      }
      for (let i = 0; i < length; i++) {
        const weight = weights[i];
        if (weight === 0) continue;
        if (slots[i] < 0) {
          termVector(task.seed, counts.terms[at + i], sum.staging);
          sum.addStaged(weight);
        } else sum.addSlot(slots[i], weight);
      }
      at += length;
      if (used === 0) {
        empty++;
        continue;
      }
      const s = new Uint32Array(words);
      sum.signBits(s, 0);
      records.push({ d: counts.ordinals[d], s });
    }
    sum.signQueued(signed);
  } finally {
    sum.release();
  }
  records.sort(compareSigRecords);
  await writeRunFile(shardFile(task.workdir, task.index, "run"), records);
  return { signed: records.length, empty };
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
