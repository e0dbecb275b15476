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
export function loadWorkdirVectors(workdir: string, prepared: PrepareManifest): SparseRows {
  const [vocab] = readRunFileSync<{ terms: Float64Array; dfs: Uint32Array }>(vocabularyFile(workdir));
  const N = prepared.counts.documents;
  const tfidf = prepared.options.weighting === "tfidf";
  const rank = new NumberMap(vocab.terms.length);
  const factor = new Float64Array(vocab.terms.length);
  for (let r = 0; r < vocab.terms.length; r++) {
    rank.set(vocab.terms[r], r);
    factor[r] = tfidf ? Math.log(N / vocab.dfs[r]) : 1;
  }
  const ordinals: number[] = [];
  const rowPtr: number[] = [0];
  const cols: number[] = [];
  const vals: number[] = [];
  for (let s = 0; s < prepared.counts.shards; s++) {
    const [counts] = readRunFileSync<ShardCounts>(shardFile(workdir, s, "counts"));
    let at = 0;
    for (let d = 0; d < counts.ordinals.length; d++) {
      const end = at + counts.lengths[d];
      const before = cols.length;
      for (; at < end; at++) {
        const r = rank.get(counts.terms[at]);
        if (r === undefined || factor[r] === 0) continue;
        cols.push(r);
        vals.push(counts.counts[at] * factor[r]);
      }
      if (cols.length > before) {
        ordinals.push(counts.ordinals[d]);
        rowPtr.push(cols.length);
      }
    }
  }
  return unitRows(Uint32Array.from(ordinals), Uint32Array.from(rowPtr), Uint32Array.from(cols), Float64Array.from(vals), vocab.terms.length);
}
