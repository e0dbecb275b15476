import type { NormalizeOptions, ReaderOptions } from "./options.js";

/** The methods of `vertdup run --method`: the core pipeline and those of the sources. */
export const METHOD_NAMES = ["lsh-cosine", "minhash", "paragraphs", "simhash384", "exact"] as const;
export type MethodName = (typeof METHOD_NAMES)[number];

/** Which document a cluster keeps (001: never mark a longer document as a copy of a shorter one). */
/** `older` is `first` over index batches followed by the new inputs (`--against`). */
export type KeepPolicy = "longest" | "first" | "older";

/** Everything a chunk task of any method needs to turn documents into features. */
export interface FeatureOptions extends ReaderOptions, NormalizeOptions {
  /** Words per shingle (minhash). */
  shingleSize: number;
  /** MinHash permutations. */
  numPerm: number;
  /** LSH bands × rows (minhash), bands · rows <= numPerm. */
  bands: number;
  rows: number;
  seed: number;
  /** Paragraphs with fewer kept tokens are "short" (000: 9). */
  shortTokens: number;
}

/** Options of the search step of a method. */
export interface SearchOptions {
  /** Minimum similarity (minhash, paragraphs). */
  threshold: number;
  /** Most differing bits (simhash384). */
  maxDistance: number;
  /** Bytes of candidates' shingle sets minhash verification holds at once. */
  memory: number;
}

export const SIMHASH_BITS = 384;
/** 12 blocks of 32 bits: the unit of simhash384's pigeonhole candidate search. */
export const SIMHASH_WORDS = SIMHASH_BITS / 32;

export const METHOD_DEFAULTS = {
  minhash: { shingleSize: 5, threshold: 0.8, numPerm: 128, memory: "2G" },
  paragraphs: { threshold: 0.8, shortTokens: 9 },
  simhash384: { maxDistance: 5 },
} as const;
