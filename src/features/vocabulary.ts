import { readRunFileSync } from "../runs/run-file.js";
import { shardFile } from "../coordinator/workdir.js";
import { NumberMap } from "../util/number-map.js";
import { wordOrder } from "../util/radix-order.js";
import { growableF64, growableU32 } from "../util/typed-arrays.js";
import { documentFrequencies, type ShardDf } from "./count-shard.js";
import { dfLimit, type PrepareOptions } from "../options.js";

/**
 * (term, df) entries of the shards' df tables that the merge holds at once, 16 bytes each
 * (term, df, sort order): 512 MiB whatever the number of distinct terms.
 */
export const MERGE_ENTRIES = 1 << 25;
/** Entries sorted at once within a part (about 2 MiB with the sort's scratch). */
const SORT_ENTRIES = 1 << 17;

/** The kept vocabulary: term hashes with their df, ordered by decreasing df then hash. */
export interface KeptTerms {
  terms: Float64Array;
  dfs: Uint32Array;
}

/**
 * What the sign pass needs besides the kept terms (the second record of vocab.zst): the
 * number of leading kept terms with df ≥ 2, and, when terms with df = 1 are kept, the terms
 * with df ≥ 2 that are not (above --max-df). A term of a document that is in neither has
 * df = 1, so the sign pass looks up only the repeated terms.
 */
export interface RepeatedTerms {
  repeated: number;
  excess: Float64Array;
  /** Terms with df = 1 are kept (--min-df ≤ 1 ≤ --max-df). */
  keepsOnce: boolean;
}

/** The merged vocabulary: kept terms, the sign pass's lookup, and the number of distinct terms. */
export interface MergedVocabulary extends RepeatedTerms {
  kept: KeptTerms;
  terms: number;
}

/** Index of the first term ≥ value in a sorted array. */
function lowerBound(terms: Float64Array, value: number): number {
  let lo = 0;
  let hi = terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (terms[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Merges the partial document frequencies of shards 0..shards-1 (`read`, each sorted by
 * term) and reduces the vocabulary to the terms whose df lies in [minDf, maxDf] (the thesis's
 * reduce_voc; limits below 1 are fractions of the documents). No table of the distinct terms
 * is made: the hash range is cut into as many parts as keep at most `entries` shard entries
 * in memory (the shards are read once more per part when there are several), and each part is
 * merged by sorting its entries. Kept terms with df = 1, most of the terms of shingles, come
 * out in hash order, their place in the kept order; the repeated ones are sorted by
 * decreasing df at the end (a part's entries are sorted by hash with `documentFrequencies`' bucket
 * sort, which sums their dfs; the repeated terms by decreasing df with a stable radix sort).
 */
export function mergeVocabulary(
  read: (shard: number) => ShardDf,
  shards: number,
  docs: number,
  opts: Pick<PrepareOptions, "minDf" | "maxDf">,
  entries = MERGE_ENTRIES,
  sortEntries = SORT_ENTRIES,
): MergedVocabulary {
  const min = dfLimit(opts.minDf, docs);
  const max = dfLimit(opts.maxDf, docs);
  const keepsOnce = min <= 1 && 1 <= max;
  // A first reading learns the sizes, and serves as the only one when everything fits.
  let held: ShardDf[] | null = [];
  let total = 0;
  for (let i = 0; i < shards; i++) {
    const part = read(i);
    total += part.terms.length;
    if (held !== null && total <= entries) held.push(part);
    else held = null;
  }
  // Hashes are uniform: a quarter more parts than the average needs keeps each within bounds.
  const parts = held === null ? Math.ceil((1.25 * total) / entries) : 1;
  const repeatedTerms = growableF64();
  const repeatedDfs = growableU32();
  const once = growableF64();
  const excess = growableF64(1 << 10);
  let distinct = 0;
  // Hashes are below 2^53: the last part ends there.
  const cut = (p: number, of: number) => Math.floor((p * 2 ** 53) / of);
  for (let p = 0; p < parts; p++) {
    const from = cut(p, parts);
    const to = cut(p + 1, parts);
    const slices: ShardDf[] = [];
    let size = 0;
    for (let i = 0; i < shards; i++) {
      const shard = held === null ? read(i) : held[i];
      const a = lowerBound(shard.terms, from);
      const b = lowerBound(shard.terms, to);
      // Copies when the shards are read part by part, so that no whole shard stays in memory.
      const own = held === null ? (x: Float64Array | Uint32Array) => x.slice(a, b) : (x: Float64Array | Uint32Array) => x.subarray(a, b);
      slices.push({ terms: own(shard.terms) as Float64Array, dfs: own(shard.dfs) as Uint32Array });
      size += b - a;
    }
    // Sorted a piece of the part at a time, small enough for the bucket sort's scatter to
    // stay in the CPU cache (it misses on every entry otherwise): the pieces of the hash
    // range come one after another, so the order is the same.
    const pieces = Math.ceil(size / sortEntries);
    const cursors = new Uint32Array(shards);
    const terms = growableF64(Math.min(size, 2 * sortEntries));
    const dfs = growableU32(Math.min(size, 2 * sortEntries));
    for (let q = 0, start = from; q < pieces; q++) {
      // Rounded, but increasing with q: each entry is in exactly one piece.
      const end = from + Math.floor(((q + 1) * (to - from)) / pieces);
      terms.length = 0;
      dfs.length = 0;
      for (let i = 0; i < shards; i++) {
        const { terms: t, dfs: d } = slices[i];
        const b = q + 1 === pieces ? t.length : lowerBound(t, end);
        terms.append(t.subarray(cursors[i], b));
        dfs.append(d.subarray(cursors[i], b));
        cursors[i] = b;
      }
      // The piece's terms, in [start, end), spread over the bucket sort's whole range by an
      // exact increasing map (integers below 2^53 shifted, times a power of two): bucketed by
      // the hash range's top bits, a piece's entries fell into a few buckets, long to insert into.
      let scale = 1;
      while (Math.max(1, end - start) * scale * 2 <= 2 ** 53) scale *= 2;
      const spread = terms.view();
      for (let k = 0; k < spread.length; k++) spread[k] = (spread[k] - start) * scale;
      // The piece's distinct terms in hash order with their summed df.
      const merged = documentFrequencies(spread, dfs.view());
      for (let k = 0; k < merged.terms.length; k++) {
        const term = merged.terms[k] / scale + start;
        const df = merged.dfs[k];
        distinct++;
        if (df >= min && df <= max) {
          if (df === 1) once.push(term);
          else {
            repeatedTerms.push(term);
            repeatedDfs.push(df);
          }
        } else if (keepsOnce && df > 1) excess.push(term);
      }
      start = end;
    }
  }
  const n = repeatedTerms.length;
  const byDf = wordOrder(repeatedDfs.view().map((df) => 0xffff_ffff - df), n);
  const kept: KeptTerms = { terms: new Float64Array(n + once.length), dfs: new Uint32Array(n + once.length) };
  for (let k = 0; k < n; k++) {
    kept.terms[k] = repeatedTerms.values[byDf[k]];
    kept.dfs[k] = repeatedDfs.values[byDf[k]];
  }
  kept.terms.set(once.view(), n);
  kept.dfs.fill(1, n);
  return { kept, repeated: n, excess: excess.view().slice(), keepsOnce, terms: distinct };
}

/** mergeVocabulary over the df files of a work directory's shards. */
export function mergeShardVocabulary(workdir: string, shards: number, docs: number, opts: Pick<PrepareOptions, "minDf" | "maxDf">): MergedVocabulary {
  return mergeVocabulary((i) => readRunFileSync<ShardDf>(shardFile(workdir, i, "df"))[0], shards, docs, opts);
}

/** The kept vocabulary as the sign pass looks it up, in shared memory for the workers. */
export interface VocabularyIndex {
  /** Term hash → rank, its position in KeptTerms (decreasing df). */
  ranks: NumberMap;
  /** Weight factor by rank: idf = ln(N / df) for tf-idf (a term in every document weighs 0), 1 for raw tf. */
  factors: Float64Array;
}

/** The weight factor of a term with document frequency df. */
function factor(df: number, docs: number, weighting: PrepareOptions["weighting"]): number {
  return weighting === "tfidf" ? Math.log(docs / df) : 1;
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
    factors[k] = factor(kept.dfs[k], docs, weighting);
  }
  return { ranks, factors };
}

/**
 * vocabularyIndex for the sign pass of the corpus the vocabulary was counted from, without
 * the terms of df = 1: the repeated kept terms keep their ranks, the excess terms follow with
 * factor 0 (dropped), and `onceFactor` is the factor of any term not in the table, which has
 * df = 1 (0 when such terms are not kept). The same rank, factor and cache slot as
 * vocabularyIndex for every term of the corpus; no table entry for the df = 1 terms.
 */
export function signingIndex(kept: KeptTerms, { repeated, excess, keepsOnce }: RepeatedTerms, docs: number, weighting: PrepareOptions["weighting"]): VocabularyIndex & { onceFactor: number } {
  const n = repeated + excess.length;
  const ranks = new NumberMap(n, true);
  const factors = new Float64Array(new SharedArrayBuffer(n * 8));
  for (let k = 0; k < repeated; k++) {
    ranks.set(kept.terms[k], k);
    factors[k] = factor(kept.dfs[k], docs, weighting);
  }
  for (let k = 0; k < excess.length; k++) ranks.set(excess[k], repeated + k);
  return { ranks, factors, onceFactor: keepsOnce ? factor(1, docs, weighting) : 0 };
}
