/** How raw token values become terms (the thesis's create_bows options). */
export interface NormalizeOptions {
  lowercase: boolean;
  /** Keep tokens made only of digits (the thesis's `save_nums`). */
  keepNumbers: boolean;
}

const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;
const ONLY_DIGITS = /^\p{N}+$/u;

/** Returns the normalised term of a token, or null when the token is dropped. */
export function normalizeToken(token: string, opts: NormalizeOptions): string | null {
  if (!HAS_WORD_CHAR.test(token)) return null;
  if (!opts.keepNumbers && ONLY_DIGITS.test(token)) return null;
  return opts.lowercase ? token.toLowerCase() : token;
}
