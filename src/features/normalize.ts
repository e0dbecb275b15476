import type { Normalization, NormalizeOptions } from "../core/options.js";
const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;
const ONLY_DIGITS = /^\p{N}+$/u;
/** Invisible characters (soft hyphen, zero-width space and joiners, word joiner, BOM…), which Unicode's NFKC_Casefold also removes. */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
/** The generic combining diacritics (accents, stress marks) of Latin, Greek and Cyrillic; script-specific marks (Indic vowel signs…) spell words and stay. */
const DIACRITICS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/gu;
const NON_ASCII = /[^\0-\x7f]/;

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

/** The token in Unicode form `form` (core/options.ts Normalization); ASCII is the same in every form. */
export function normalizeUnicode(token: string, form: Normalization): string {
  if (form === "none" || !NON_ASCII.test(token)) return token;
  // The invisible characters go first, so that what they separated composes.
  const visible = token.replace(IGNORABLE, "");
  if (form === "nfc") return visible.normalize("NFC");
  return visible.normalize("NFKD").replace(DIACRITICS, "").normalize("NFC");
}

/** Returns the normalised term of a token, or null when the token is dropped. */
export function normalizeToken(token: string, opts: NormalizeOptions): string | null {
  const text = normalizeUnicode(token, opts.normalize);
  if (!hasAsciiLetter(text)) {
    if (!HAS_WORD_CHAR.test(text)) return null;
    if (!opts.keepNumbers && ONLY_DIGITS.test(text)) return null;
  }
  return opts.lowercase ? text.toLowerCase() : text;
}
