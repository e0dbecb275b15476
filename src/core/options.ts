export interface ReaderOptions {
  /** Which tab-separated column of a token line is the term (0 = word). */
  column: number;
  /** Attribute of `<doc>` that names the document. */
  idAttr: string;
  /**
   * `--partition-attr`: attribute of `<doc>` whose value partitions the corpus; documents are
   * compared only within one value, a document without it having the empty value (absent: one partition).
   */
  partitionAttr?: string;
  /** Record the `<p>` token ranges of each document (the paragraph methods need them). */
  paragraphs?: boolean;
}

/** What happens to a document longer than --max-doc-bytes: an error, or it is skipped and counted. */
export type Oversize = "error" | "skip";

/**
 * Unicode normalisation of terms (docs/methods.md "Unicode forms"): `nfc` composes (NFC) and
 * removes the invisible default-ignorable characters (soft hyphen, zero-width ones); `nfkc`
 * also folds compatibility forms (NFKC: fullwidth letters, ligatures) and drops combining
 * diacritics (accents, stress marks); `none` hashes the tokens as they are (vertdup ≤ 0.6.0).
 */
export const NORMALIZATIONS = ["nfc", "nfkc", "none"] as const;
export type Normalization = (typeof NORMALIZATIONS)[number];

/** How raw token values become terms (the thesis's create_bows options). */
export interface NormalizeOptions {
  /** Applied before lowercasing. */
  normalize: Normalization;
  lowercase: boolean;
  /** Keep tokens made only of digits (the thesis's `save_nums`). */
  keepNumbers: boolean;
}

export interface TermOptions extends NormalizeOptions {
  /** k consecutive kept tokens form one term (the thesis's `shingle_size`). */
  shingleSize: number;
}

/** How calibrate draws its documents (README "Calibrating"): stratified by the run's clusters, or uniformly. */
export type CalibrationSampling = "stratified" | "uniform";

/** Options of the preparatory phase: everything that shapes the signatures. */
export interface PrepareOptions extends ReaderOptions, TermOptions {
  bits: number;
  weighting: "tfidf" | "tf";
  /** Minimum / maximum document frequency: a count, or a fraction of documents when < 1. */
  minDf: number;
  maxDf: number;
  seed: number;
  /** Components of the random vectors: int8-quantized Gaussians, or float32 ones (the thesis's). */
  projection: Projection;
}

export const PROJECTIONS = ["int8", "float32"] as const;
export type Projection = (typeof PROJECTIONS)[number];

/**
 * What pairs.tsv holds: `edges`, the pairs found between distinct groups (linear in the
 * corpus); `all`, every document pair of every group and edge (quadratic in a group's size,
 * refused over `limit` lines unless the limit is 0).
 */
export interface PairsOutput {
  mode: "edges" | "all";
  limit: number;
}

export const DEFAULT_PAIRS: PairsOutput = { mode: "edges", limit: 100_000_000 };

/** Options of the PLEB phase. */
export interface PlebOptions {
  threshold: number;
  beam: number;
  shiftCount: number;
  iterations: number;
  seed: number;
  /** Pairs kept by the iterations: their spanning forest (`edges`) or every one (`all`). */
  pairs: PairsOutput["mode"];
  /** Documents sampled to estimate recall after each iteration group (absent: none). */
  recallSample?: number;
  /** How those documents are drawn (README "Calibrating"): by the strata of the first iteration group's clusters, or uniformly. */
  recallSampling?: CalibrationSampling;
  /** End the iterations once the estimated recall's lower 95 % bound reaches this (needs recallSample). */
  targetRecall?: number;
  /** `--verify`: candidates are kept when their exact cosine is ≥ this (absent: `--no-verify`). */
  cosineThreshold?: number;
}

export interface ExecutionOptions {
  workers: number;
  /** Where temporary work directories go (when no -w is given). */
  tmpDir?: string;
  /** Plain log lines instead of progress bars, whatever stderr is. */
  quiet?: boolean;
  /** Bytes of corpus per shard: a tuning knob, no output depends on it. */
  chunkBytes?: number;
  /** PLEB iterations per resumable task (a Slurm array task): no output depends on it. */
  iterationsPerGroup?: number;
  /** A larger document or line stops the reading (--max-doc-bytes)… */
  maxDocBytes?: number;
  /** …or is skipped and counted (--oversize skip). */
  oversize?: Oversize;
  /** --memory: bytes the vocabulary step's merge may hold (mergeLimit); no output depends on it. */
  memory?: number;
}

/** The default of ExecutionOptions.maxDocBytes (--max-doc-bytes). */
export const DEFAULT_MAX_DOC_BYTES = 256 << 20;

/** Default PLEB iterations per task: the unit of resumption and of Slurm array tasks. */
export const DEFAULT_ITERATIONS_PER_GROUP = 10;

export const DEFAULT_PREPARE: PrepareOptions = {
  column: 0,
  idAttr: "id",
  normalize: "nfc",
  lowercase: true,
  keepNumbers: false,
  shingleSize: 1,
  bits: 1024,
  weighting: "tfidf",
  minDf: 1,
  maxDf: Number.POSITIVE_INFINITY,
  seed: 1,
  projection: "int8",
};

/**
 * Large enough that per-chunk costs (a task, a shard's files, a chunk's vocabulary) are small
 * (1 M documents: count and sign 64–68 s wall against 77–78 s at 1 MiB, docs/PERFORMANCE.md),
 * small enough to spread a small corpus.
 */
export const DEFAULT_CHUNK_BYTES = 4 << 20;

/** Transpositions per iteration, per signature bit: more only costs time. */
export const SHIFTS_PER_BIT = 4;

export const DEFAULT_PLEB: PlebOptions = {
  threshold: 0.9,
  beam: 50,
  shiftCount: 70,
  iterations: 100,
  seed: 1,
  pairs: DEFAULT_PAIRS.mode,
};

/** `--cosine-threshold`: the cosine the default Hamming threshold 0.9 estimates (1 − arccos(0.95)/π = 0.899). */
export const DEFAULT_COSINE_THRESHOLD = 0.95;

/** The recall `calibrate` recommends for when no `--target-recall` is given (also `--estimate-recall`'s). */
export const DEFAULT_TARGET_RECALL = 0.99;

/** Resolves a df limit given as a count or as a fraction (< 1) of `docs`. */
export function dfLimit(value: number, docs: number): number {
  return value > 0 && value < 1 ? value * docs : value;
}
