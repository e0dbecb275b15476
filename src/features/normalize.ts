import type { NormalizeOptions } from "../core/options.js";
const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;
const ONLY_DIGITS = /^\p{N}+$/u;

/**
 * Whether the token contains an ASCII letter: then it has a \p{L} character and is not
 * made only of \p{N}, so both Unicode regexes can be skipped (most tokens of most corpora).
 */
function hasAsciiLetter(token: string): boolean {
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i) | 0x20; // folds A–Z onto a–z
    if (c >= 0x61 && c <= 0x7a) return true;
  }
  return false;
}

/** Returns the normalised term of a token, or null when the token is dropped. */
export function normalizeToken(token: string, opts: NormalizeOptions): string | null {
  if (!hasAsciiLetter(token)) {
    if (!HAS_WORD_CHAR.test(token)) return null;
    if (!opts.keepNumbers && ONLY_DIGITS.test(token)) return null;
  }
  return opts.lowercase ? token.toLowerCase() : token;
}
