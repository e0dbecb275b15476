import type { ShardCounts } from "../features/count-shard.js";
import type { PrepareManifest } from "../coordinator/prepare-manifest.js";
import { shardFile, vocabularyFile } from "../coordinator/workdir.js";
import { readRunFileSync } from "../runs/run-file.js";
import { NumberMap } from "../util/number-map.js";
import { type SparseRows, unitRows } from "./sparse-rows.js";

/**
 * The document vectors of a prepared work directory, exactly as `prepare` signed them:
 * only the kept vocabulary (vocab.zst, already reduced by min/max df) counts, a component is
 * tf(t, d) · factor(t) with factor = ln(N / df(t)) under tfidf (N = all documents of the
 * corpus) or 1 under tf, terms of factor 0 are left out, and a document with no remaining
 * term has no vector (prepare gives it no signature). Term indices are ranks in vocab.zst
 * (decreasing df).
 */
export interface VectorWeights {
  /** Term hash → rank in vocab.zst. */
  rank: NumberMap;
  factor: Float64Array;
}

export function workdirWeights(workdir: string, prepared: PrepareManifest): VectorWeights {
  const [vocab] = readRunFileSync<{ terms: Float64Array; dfs: Uint32Array }>(vocabularyFile(workdir));
  const N = prepared.counts.documents;
  const tfidf = prepared.options.weighting === "tfidf";
  const rank = new NumberMap(vocab.terms.length);
  const factor = new Float64Array(vocab.terms.length);
  for (let r = 0; r < vocab.terms.length; r++) {
    rank.set(vocab.terms[r], r);
    factor[r] = tfidf ? Math.log(N / vocab.dfs[r]) : 1;
  }
  return { rank, factor };
}

/**
 * Visits the vectors of shards `from`..`to` − 1 in corpus order, unnormalised, in scratch
 * arrays valid only during the call; one shard's counts are in memory at a time.
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

/** Every document vector of a work directory as unit rows in memory. */
export function loadWorkdirVectors(workdir: string, prepared: PrepareManifest): SparseRows {
  const weights = workdirWeights(workdir, prepared);
  const ordinals: number[] = [];
  const rowPtr: number[] = [0];
  const cols: number[] = [];
  const vals: number[] = [];
  forEachWorkdirVector(workdir, weights, 0, prepared.counts.shards, (ordinal, c, v, length) => {
    for (let k = 0; k < length; k++) {
      cols.push(c[k]);
      vals.push(v[k]);
    }
    ordinals.push(ordinal);
    rowPtr.push(cols.length);
  });
  return unitRows(Uint32Array.from(ordinals), Uint32Array.from(rowPtr), Uint32Array.from(cols), Float64Array.from(vals), weights.factor.length);
}
