import type { Normalization } from "./options.js";
/** What a unit's duplicate share counts (over its tokens): see README "Semantics". */
export const COUNT_RULES = ["ngrams", "tokens", "tokens-any"] as const;
export type CountRule = (typeof COUNT_RULES)[number];

/** Where n-gram windows restart: at documents only, or also at every `<s>` sentence tag. */
export const BOUNDARIES = ["doc", "s"] as const;
export type Boundary = (typeof BOUNDARIES)[number];

/** What decides and what is written by `vertdup paragraphs` (see README "Paragraph dedup"). */
export interface ParagraphOptions {
  /** Tokens per n-gram. */
  ngram: number;
  /** A paragraph is a duplicate when its repeated share (`count`) / its tokens > threshold (onion's test). */
  threshold: number;
  /** `ngrams`: repeated n-grams (the 2017 lecture, later onion); `tokens`: tokens covered by them, onion 1.2 line for line (only kept paragraphs' n-grams count as seen; sequential); `tokens-any`: the same count with every earlier occurrence seen (parallel). */
  count: CountRule;
  /** `doc`: windows run across units and restart at every document; `s`: also at every `<s>`, `</s>`, `<s/>`. */
  boundary: Boundary;
  /** The tag whose open tags (and the line after whose closing tags) start a unit. */
  structure: string;
  /** The document tag: n-gram windows, smoothing and empty-document removal work per document. */
  docTag: string;
  /** Runs of kept units with at most this many tokens between two duplicates (or a document edge) go too. */
  maxStub: number;
  /** Prefix every line with `1\t` / `0\t` instead of removing duplicates. */
  mark: boolean;
  /** Unicode form of the tokens (core/options.ts Normalization); `none` with `count` tokens, as onion hashes its tokens as they are. */
  normalize: Normalization;
  /** `--partition-attr`: n-grams count as seen only within documents of one value of this `<doc>` attribute (absent: the empty value). */
  partitionAttr?: string;
}

export const DEFAULT_PARAGRAPH: ParagraphOptions = {
  ngram: 7,
  threshold: 0.5,
  count: "ngrams",
  boundary: "doc",
  structure: "p",
  docTag: "doc",
  maxStub: 20,
  mark: false,
  normalize: "nfc",
};

/**
 * Default `--memory`: bytes the coordinator may hold before n-gram runs go to disk, and in
 * external mode what the bucket tables share. External mode measured faster than memory mode
 * on 100 M tokens (it writes runs but holds little), so the default keeps memory small.
 */
export const DEFAULT_MEMORY = 256 * 1024 ** 2;
