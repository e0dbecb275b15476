import { readRunFileSync } from "../runs/run-file.js";
import { shardFile } from "../coordinator/workdir.js";
import { NumberMap } from "../util/number-map.js";
import type { ShardDf } from "./count-shard.js";
import { dfLimit, type PrepareOptions } from "../options.js";

/** Merges the partial document frequencies of shards 0..shards-1 into one table. */
export function mergeDocumentFrequencies(workdir: string, shards: number): NumberMap {
  const df = new NumberMap(1 << 16);
  for (let i = 0; i < shards; i++) {
    const [part] = readRunFileSync<ShardDf>(shardFile(workdir, i, "df"));
    for (let j = 0; j < part.terms.length; j++) df.add(part.terms[j], part.dfs[j]);
  }
  return df;
}

export interface TermWeights {
  /** Term hash → weight factor (idf, or 1 for tf), in shared memory for the workers. */
  table: NumberMap;
  /** Term hash → df of the kept terms, ordered by decreasing df then hash. */
  byDf: { terms: Float64Array; dfs: Uint32Array };
  dropped: number;
}

/**
 * Reduces the vocabulary to the terms whose df lies in [minDf, maxDf] (the thesis's
 * reduce_voc) and assigns each kept term its weight factor: idf = ln(N / df) for tf-idf
 * (a term in every document weighs 0), 1 for raw tf. A document vector component is then
 * tf(t, d) × factor(t).
 */
export function termWeights(df: NumberMap, docs: number, opts: Pick<PrepareOptions, "minDf" | "maxDf" | "weighting">): TermWeights {
  const min = dfLimit(opts.minDf, docs);
  const max = dfLimit(opts.maxDf, docs);
  const kept: [number, number][] = [];
  let dropped = 0;
  for (const [term, count] of df.entries()) {
    if (count >= min && count <= max) kept.push([term, count]);
    else dropped++;
  }
  kept.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const table = new NumberMap(kept.length, true);
  for (const [term, count] of kept) {
    table.set(term, opts.weighting === "tfidf" ? Math.log(docs / count) : 1);
  }
  return {
    table,
    byDf: { terms: Float64Array.from(kept, (k) => k[0]), dfs: Uint32Array.from(kept, (k) => k[1]) },
    dropped,
  };
}
