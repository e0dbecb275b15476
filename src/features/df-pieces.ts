import { openRunFrames, type RunFrames } from "../util/run-file.js";
import { VertdupError } from "../core/errors.js";

/**
 * A shard's df table cut into pieces of the hash range, so that the vocabulary merge, which
 * takes the corpus's entries a hash range (a part) at a time, reads each piece of each shard
 * once: with the whole table in one frame it decompressed every shard once per part (26
 * times over at 1 M documents of shingles). The pieces of a shard are 2^level equal ranges
 * (hashBound), with level such that a piece holds at most PIECE_ENTRIES entries; pieces of
 * any two levels nest, so a part of the merge is a whole number of a fine shard's pieces, or
 * within one piece of a coarse shard, which the merge holds while its parts go by
 * (PIECE_ENTRIES × 12 bytes per shard at most).
 */
export const PIECE_ENTRIES = 1 << 12;
/** Hashes are below 2^53: the last piece ends there. */
const HASH_END = 2 ** 53;
const MAX_LEVEL = 20;

/** Start of range p of `of` equal ranges of the hash space (exact for `of` a power of two). */
export function hashBound(p: number, of: number): number {
  return Math.floor((p * HASH_END) / of);
}

/** Index of the first term ≥ value in a sorted array. */
export function lowerBound(terms: Float64Array, value: number): number {
  let lo = 0;
  let hi = terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (terms[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The level of a table of n entries: pieces of at most PIECE_ENTRIES entries. */
export function pieceLevel(n: number): number {
  let level = 0;
  while (level < MAX_LEVEL && n > PIECE_ENTRIES * 2 ** level) level++;
  return level;
}

/** The 2^level pieces of a sorted df table (views of it). */
export function cutPieces(df: ShardDf, level: number): ShardDf[] {
  const n = 2 ** level;
  const pieces: ShardDf[] = [];
  for (let j = 0, a = 0; j < n; j++) {
    const b = j + 1 === n ? df.terms.length : lowerBound(df.terms, hashBound(j + 1, n));
    pieces.push({ terms: df.terms.subarray(a, b), dfs: df.dfs.subarray(a, b) });
    a = b;
  }
  return pieces;
}

/** The first frame of a shard's df file: the entries of each piece (2^level of them). */
export interface DfPieceSizes {
  sizes: Uint32Array;
}

/** A df file's frames: the sizes, then one ShardDf record per piece. */
export function dfFrames(df: ShardDf): unknown[][] {
  const pieces = cutPieces(df, pieceLevel(df.terms.length));
  return [[{ sizes: Uint32Array.from(pieces, (p) => p.terms.length) } satisfies DfPieceSizes], ...pieces.map((p) => [p])];
}

/** The shards' df tables as the merge reads them: the pieces of each shard. */
export interface DfSource {
  shards: number;
  /** Entries of each piece of a shard: 2^level of them. */
  sizes(shard: number): Uint32Array;
  read(shard: number, piece: number): ShardDf;
}

/** Tables in memory (or read once each by `read`), each one piece. */
export function tableSource(read: (shard: number) => ShardDf, shards: number): DfSource {
  const tables = Array.from({ length: shards }, (_, i) => read(i));
  return { shards, sizes: (i) => Uint32Array.of(tables[i].terms.length), read: (i) => tables[i] };
}

/**
 * The df files of shards 0..shards-1 (dfFrames), opened per read (thousands of shards would
 * exceed the open files allowed). A file of vertdup 0.4.0 or earlier, one plain frame with
 * the whole table, reads as one piece.
 */
export function fileSource(path: (shard: number) => string, shards: number): DfSource {
  const frames = <T>(shard: number, read: (f: RunFrames) => T): T => {
    const f = openRunFrames(path(shard));
    try {
      return read(f);
    } finally {
      f.close();
    }
  };
  const sizes = Array.from({ length: shards }, (_, i) =>
    frames(i, (f) => {
      if (!f.framed) return Uint32Array.of(f.read<ShardDf>(0)[0].terms.length);
      const [first] = f.read<DfPieceSizes>(0);
      if (!(first?.sizes instanceof Uint32Array) || first.sizes.length !== f.count - 1 || !Number.isInteger(Math.log2(first.sizes.length))) throw new VertdupError(`${path(i)}: not a df file (its first frame does not size its ${f.count - 1} pieces)`);
      return first.sizes;
    }),
  );
  return { shards, sizes: (i) => sizes[i], read: (i, piece) => frames(i, (f) => f.read<ShardDf>(f.framed ? piece + 1 : 0)[0]) };
}

/** Partial document frequencies of one shard, sorted by term. */
export interface ShardDf {
  terms: Float64Array;
  dfs: Uint32Array;
}
