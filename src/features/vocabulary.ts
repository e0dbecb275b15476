import { readRunFileSync } from "../runs/run-file.js";
import { shardFile } from "../coordinator/workdir.js";
import { NumberMap } from "../util/number-map.js";
import { integerOrder, wordOrder } from "../util/radix-order.js";
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
  const terms = new Float64Array(df.size);
  const counts = new Uint32Array(df.size);
  let n = 0;
  for (const [term, count] of df.entries()) {
    if (count < min || count > max) continue;
    terms[n] = term;
    counts[n++] = count;
  }
  // Two stable radix sorts (a comparison sort of millions of pairs took seconds): by hash,
  // then by decreasing df, which keeps equal dfs in hash order.
  const byHash = integerOrder(terms, n);
  const complement = new Uint32Array(n);
  for (let k = 0; k < n; k++) complement[k] = 0xffff_ffff - counts[byHash[k]];
  const byDf = wordOrder(complement, n);
  const kept: KeptTerms = { terms: new Float64Array(n), dfs: new Uint32Array(n) };
  for (let k = 0; k < n; k++) {
    const i = byHash[byDf[k]];
    kept.terms[k] = terms[i];
    kept.dfs[k] = counts[i];
  }
  return { kept, dropped: df.size - n };
}

/** The kept vocabulary as the sign pass looks it up, in shared memory for the workers. */
export interface VocabularyIndex {
  /** Term hash → rank, its position in KeptTerms (decreasing df). */
  ranks: NumberMap;
  /** Weight factor by rank: idf = ln(N / df) for tf-idf (a term in every document weighs 0), 1 for raw tf. */
  factors: Float64Array;
}

/**
 * The rank and weight factor of every kept term. A document vector component is
 * tf(t, d) × factor(t); the rank is also the term's slot in the vector cache, which holds the
 * leading terms, so one lookup gives both.
 */
export function vocabularyIndex(kept: KeptTerms, docs: number, weighting: PrepareOptions["weighting"]): VocabularyIndex {
  const n = kept.terms.length;
  const ranks = new NumberMap(n, true);
  const factors = new Float64Array(new SharedArrayBuffer(n * 8));
  for (let k = 0; k < n; k++) {
    ranks.set(kept.terms[k], k);
    factors[k] = weighting === "tfidf" ? Math.log(docs / kept.dfs[k]) : 1;
  }
  return { ranks, factors };
}
