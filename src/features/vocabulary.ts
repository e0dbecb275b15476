import { type ShardDf, fileSource, hashBound, lowerBound, PIECE_ENTRIES, tableSource, type DfSource } from "./df-pieces.js";
import { FrameWriter, openRunFrames } from "../util/run-file.js";
import { shardFile } from "../workdir/layout.js";
import { VertdupError } from "../core/errors.js";
import { NumberMap } from "../util/number-map.js";
import { wordOrder } from "../util/radix-order.js";
import { concatF64, concatU32, growableF64, growableU32 } from "../util/typed-arrays.js";
import { documentFrequencies } from "./count-shard.js";
import { dfLimit, type PrepareOptions } from "../core/options.js";

/**
 * (term, df) entries of the shards' df tables that the merge holds at once, 12 bytes each
 * (term, df): 192 MiB whatever the number of distinct terms (mergeLimit: less under --memory).
 * The allocator keeps what the step held through the sign pass that follows: at 1 M
 * documents 2^25 entries took the step to 479 MiB, and `run`'s sign pass to 974 MiB
 * (2^24: 336 and 882 MiB, the same CPU).
 */
export const MERGE_ENTRIES = 1 << 24;
/** Entries sorted at once within a part (about 2 MiB with the sort's scratch). */
const SORT_ENTRIES = 1 << 17;
/** The largest piece of a coarse shard the merge holds while its parts go by (df-pieces.ts). */
const HOLD_ENTRIES = 16 * PIECE_ENTRIES;
/** Kept terms of df = 1 per frame of vocab.zst (8 MiB): the merge hands them on a chunk at a time. */
export const ONCE_CHUNK = 1 << 20;

/** The kept vocabulary: term hashes with their df, ordered by decreasing df then hash. */
export interface KeptTerms {
  terms: Float64Array;
  dfs: Uint32Array;
}

/**
 * What the sign pass needs besides the kept terms: the number of leading kept terms with
 * df ≥ 2, and, when terms with df = 1 are kept, the terms with df ≥ 2 that are not (above
 * --max-df). A term of a document that is in neither has df = 1, so the sign pass looks up
 * only the repeated terms.
 */
export interface RepeatedTerms {
  repeated: number;
  excess: Float64Array;
  /** Terms with df = 1 are kept (--min-df ≤ 1 ≤ --max-df). */
  keepsOnce: boolean;
}

/**
 * The last frame of vocab.zst: the kept terms with df ≥ 2 (`kept`, `repeated` of them) and
 * RepeatedTerms. The frames before it hold the kept terms of df = 1, `once` of them, in hash
 * order: the rest of the kept order, as one Float64Array record per ONCE_CHUNK terms. Those
 * are most of the terms of shingles (214 M of 228 M at 1 M documents) and signing never
 * looks them up (a term not in its table has df = 1, signingIndex), so the sign pass reads
 * this frame alone; they still count in a document's vector and its norm, with factor
 * ln(N / 1), wherever the vectors are made (readKeptTerms).
 */
export interface VocabularyHeader extends RepeatedTerms {
  kept: KeptTerms;
  once: number;
}

/** The merged vocabulary: kept terms, the sign pass's lookup, and the number of distinct terms. */
export interface MergedVocabulary extends RepeatedTerms {
  kept: KeptTerms;
  terms: number;
}

/** The entries the merge holds at once under a memory budget in bytes (about 24 bytes per entry with the sort's copies), at most MERGE_ENTRIES. */
export function mergeLimit(memory?: number): number {
  return memory === undefined ? MERGE_ENTRIES : Math.max(SORT_ENTRIES, Math.min(MERGE_ENTRIES, Math.floor(memory / 24)));
}

/**
 * Merges the partial document frequencies of the shards (`source`, each cut into pieces of
 * the hash range, df-pieces.ts) and reduces the vocabulary to the terms whose df lies in
 * [minDf, maxDf] (the thesis's reduce_voc; limits below 1 are fractions of the documents).
 * No table of the distinct terms is made: the hash range is cut into 2^L parts, as few as
 * keep at most `entries` shard entries in memory, and each part is merged by sorting its
 * entries; every piece of every shard is read once. Kept terms with df = 1 come out in hash
 * order, their place in the kept order, and go to `once` a chunk of ONCE_CHUNK at a time (a
 * view, valid during the call) as soon as they are known; the repeated ones are returned,
 * sorted by decreasing df at the end (a part's entries are sorted by hash with
 * `documentFrequencies`' bucket sort, which sums their dfs; the repeated terms by decreasing
 * df with a stable radix sort). The result, and the chunks, are the same whatever `entries`.
 */
export function mergeDfPieces(
  source: DfSource,
  docs: number,
  opts: Pick<PrepareOptions, "minDf" | "maxDf">,
  once: (terms: Float64Array) => void,
  entries = MERGE_ENTRIES,
  sortEntries = SORT_ENTRIES,
): VocabularyHeader & { terms: number } {
  const min = dfLimit(opts.minDf, docs);
  const max = dfLimit(opts.maxDf, docs);
  const keepsOnce = min <= 1 && 1 <= max;
  const { shards } = source;
  const sizes = Array.from({ length: shards }, (_, i) => source.sizes(i));
  const levels = sizes.map((s) => Math.log2(s.length));
  const total = sizes.reduce((n, s) => n + s.reduce((a, b) => a + b, 0), 0);
  // Hashes are uniform: a quarter more than the average needs keeps each part within bounds.
  let level = 0;
  while (total > entries && 2 ** level < (1.25 * total) / entries) level++;
  const parts = 2 ** level;
  const repeatedTerms = growableF64();
  const repeatedDfs = growableU32();
  const excess = growableF64(1 << 10);
  const chunk = new Float64Array(ONCE_CHUNK);
  let chunked = 0;
  let onceCount = 0;
  let distinct = 0;
  const empty: ShardDf = { terms: new Float64Array(0), dfs: new Uint32Array(0) };
  // The piece a coarse shard (level below the parts') is in, held while its parts go by.
  const held: ({ piece: number; df: ShardDf } | undefined)[] = new Array(shards);
  const readPiece = (i: number, j: number) => (sizes[i][j] === 0 ? empty : source.read(i, j));
  for (let p = 0; p < parts; p++) {
    const from = hashBound(p, parts);
    const to = hashBound(p + 1, parts);
    const slices: ShardDf[] = [];
    let size = 0;
    for (let i = 0; i < shards; i++) {
      if (levels[i] >= level) {
        // The shard's pieces in the part, as one slice: the sort below visits every slice
        // once per 128 K entries of the part, which took longer than the sort itself with a
        // slice per piece.
        const per = 2 ** (levels[i] - level);
        const own: ShardDf[] = [];
        for (let j = p * per; j < (p + 1) * per; j++) if (sizes[i][j] > 0) own.push(readPiece(i, j));
        if (own.length === 0) continue;
        const slice = own.length === 1 ? own[0] : { terms: concatF64(own.map((d) => d.terms)), dfs: concatU32(own.map((d) => d.dfs)) };
        slices.push(slice);
        size += slice.terms.length;
      } else {
        const per = 2 ** (level - levels[i]);
        const j = Math.floor(p / per);
        // A large piece (a df file of vertdup 0.4.0, one piece) is read again for each part
        // and only the part's slice copied, so that the whole shard does not stay in memory.
        const large = sizes[i][j] > HOLD_ENTRIES;
        let h = held[i];
        if (h?.piece !== j) h = { piece: j, df: readPiece(i, j) };
        held[i] = large || (p + 1) % per === 0 ? undefined : h;
        const a = lowerBound(h.df.terms, from);
        const b = lowerBound(h.df.terms, to);
        const own = large ? (x: Float64Array | Uint32Array) => x.slice(a, b) : (x: Float64Array | Uint32Array) => x.subarray(a, b);
        slices.push({ terms: own(h.df.terms) as Float64Array, dfs: own(h.df.dfs) as Uint32Array });
        size += b - a;
      }
    }
    // Sorted a piece of the part at a time, small enough for the bucket sort's scatter to
    // stay in the CPU cache (it misses on every entry otherwise): the pieces of the hash
    // range come one after another, so the order is the same.
    const pieces = Math.ceil(size / sortEntries);
    const cursors = new Uint32Array(slices.length);
    const terms = growableF64(Math.min(size, 2 * sortEntries));
    const dfs = growableU32(Math.min(size, 2 * sortEntries));
    for (let q = 0, start = from; q < pieces; q++) {
      // Rounded, but increasing with q: each entry is in exactly one piece.
      const end = from + Math.floor(((q + 1) * (to - from)) / pieces);
      terms.length = 0;
      dfs.length = 0;
      for (let i = 0; i < slices.length; i++) {
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
          if (df === 1) {
            chunk[chunked++] = term;
            onceCount++;
            if (chunked === ONCE_CHUNK) {
              once(chunk);
              chunked = 0;
            }
          } else {
            repeatedTerms.push(term);
            repeatedDfs.push(df);
          }
        } else if (keepsOnce && df > 1) excess.push(term);
      }
      start = end;
    }
  }
  if (chunked > 0) once(chunk.subarray(0, chunked));
  const n = repeatedTerms.length;
  const byDf = wordOrder(repeatedDfs.view().map((df) => 0xffff_ffff - df), n);
  const kept: KeptTerms = { terms: new Float64Array(n), dfs: new Uint32Array(n) };
  for (let k = 0; k < n; k++) {
    kept.terms[k] = repeatedTerms.values[byDf[k]];
    kept.dfs[k] = repeatedDfs.values[byDf[k]];
  }
  return { kept, repeated: n, excess: excess.view().slice(), keepsOnce, once: onceCount, terms: distinct };
}

/** mergeDfPieces of tables read whole (`read`, each sorted by term), with every kept term in `kept`. */
export function mergeVocabulary(
  read: (shard: number) => ShardDf,
  shards: number,
  docs: number,
  opts: Pick<PrepareOptions, "minDf" | "maxDf">,
  entries = MERGE_ENTRIES,
  sortEntries = SORT_ENTRIES,
): MergedVocabulary {
  const once = growableF64();
  const { kept, repeated, excess, keepsOnce, terms } = mergeDfPieces(tableSource(read, shards), docs, opts, (t) => once.append(t), entries, sortEntries);
  return { kept: withOnce(kept, once.view()), repeated, excess, keepsOnce, terms };
}

/** The kept terms with df ≥ 2 followed by those of df = 1. */
function withOnce(repeated: KeptTerms, once: Float64Array): KeptTerms {
  const n = repeated.terms.length;
  const kept: KeptTerms = { terms: new Float64Array(n + once.length), dfs: new Uint32Array(n + once.length) };
  kept.terms.set(repeated.terms);
  kept.dfs.set(repeated.dfs);
  kept.terms.set(once, n);
  kept.dfs.fill(1, n);
  return kept;
}

/**
 * Merges the df files of a work directory's shards (each piece read once, `entries` at a
 * time) and writes `path` (vocab.zst) as it goes: the kept terms of df = 1 a frame at a time,
 * then the VocabularyHeader, so that they are never all in memory. Returns the header and
 * the number of distinct terms.
 */
export function writeShardVocabulary(
  workdir: string,
  shards: number,
  docs: number,
  opts: Pick<PrepareOptions, "minDf" | "maxDf">,
  path: string,
  entries = MERGE_ENTRIES,
): VocabularyHeader & { terms: number } {
  const source = fileSource((i) => shardFile(workdir, i, "df"), shards);
  const writer = new FrameWriter(path);
  try {
    const { terms, ...header } = mergeDfPieces(source, docs, opts, (t) => writer.frame([t]), entries);
    writer.frame([header]);
    writer.commit();
    return { ...header, terms };
  } catch (err) {
    writer.abort();
    throw err;
  }
}

/**
 * The header of a vocabulary file (the kept terms of df ≥ 2 and RepeatedTerms), its last
 * frame alone. A vocab.zst of vertdup 0.4.0 or earlier holds every kept term in one record,
 * then RepeatedTerms (absent before 0.3: then every kept term is in the table, as repeated).
 */
export function readVocabularyHeader(path: string): VocabularyHeader {
  const frames = openRunFrames(path);
  try {
    if (frames.framed) return frames.read<VocabularyHeader>(frames.count - 1)[0];
    const [kept, signing] = frames.read<KeptTerms | RepeatedTerms>(0) as [KeptTerms, RepeatedTerms?];
    const repeated = signing?.repeated ?? kept.terms.length;
    return {
      kept: { terms: kept.terms.subarray(0, repeated), dfs: kept.dfs.subarray(0, repeated) },
      repeated,
      excess: signing?.excess ?? new Float64Array(0),
      keepsOnce: signing?.keepsOnce ?? false,
      once: kept.terms.length - repeated,
    };
  } finally {
    frames.close();
  }
}

/**
 * Every kept term of a vocabulary file, in the kept order, with its df: for vectors that
 * need a column per term (the exact references, PLEB's verification, --against's weights).
 * The df = 1 terms are read a frame at a time into the arrays. A file holding one KeptTerms
 * record (vertdup 0.4.0's vocab.zst, an index's added terms) is that record.
 */
export function readKeptTerms(path: string): KeptTerms {
  const frames = openRunFrames(path);
  try {
    if (!frames.framed) return frames.read<KeptTerms>(0)[0];
    const [header] = frames.read<VocabularyHeader>(frames.count - 1);
    const n = header.kept.terms.length;
    const kept: KeptTerms = { terms: new Float64Array(n + header.once), dfs: new Uint32Array(n + header.once) };
    kept.terms.set(header.kept.terms);
    kept.dfs.set(header.kept.dfs);
    let at = n;
    for (let i = 0; i + 1 < frames.count; i++) {
      const [chunk] = frames.read<Float64Array>(i);
      if (at + chunk.length > kept.terms.length) throw new VertdupError(`${path}: more terms of df = 1 than its header's ${header.once}`);
      kept.terms.set(chunk, at);
      at += chunk.length;
    }
    if (at !== kept.terms.length) throw new VertdupError(`${path}: ${at - n} terms of df = 1, its header says ${header.once}`);
    kept.dfs.fill(1, n);
    return kept;
  } finally {
    frames.close();
  }
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
