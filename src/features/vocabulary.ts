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

/** The kept vocabulary: term hashes with their df, ordered by decreasing df then hash. */
export interface KeptTerms {
  terms: Float64Array;
  dfs: Uint32Array;
}

/**
 * Reduces the vocabulary to the terms whose df lies in [minDf, maxDf] (the thesis's
 * reduce_voc; limits below 1 are fractions of the documents).
 */
export function keepTerms(df: NumberMap, docs: number, opts: Pick<PrepareOptions, "minDf" | "maxDf">): { kept: KeptTerms; dropped: number } {
  const min = dfLimit(opts.minDf, docs);
  const max = dfLimit(opts.maxDf, docs);
  const kept: [number, number][] = [];
  let dropped = 0;
  for (const [term, count] of df.entries()) {
    if (count >= min && count <= max) kept.push([term, count]);
    else dropped++;
  }
  kept.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return { kept: { terms: Float64Array.from(kept, (k) => k[0]), dfs: Uint32Array.from(kept, (k) => k[1]) }, dropped };
}

/**
 * Term hash → weight factor of every kept term, in shared memory for the workers:
 * idf = ln(N / df) for tf-idf (a term in every document weighs 0), 1 for raw tf. A
 * document vector component is then tf(t, d) × factor(t).
 */
export function weightFactors(kept: KeptTerms, docs: number, weighting: PrepareOptions["weighting"]): NumberMap {
  const table = new NumberMap(kept.terms.length, true);
  for (let k = 0; k < kept.terms.length; k++) table.set(kept.terms[k], weighting === "tfidf" ? Math.log(docs / kept.dfs[k]) : 1);
  return table;
}
