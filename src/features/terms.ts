import type { TermOptions, NormalizeOptions } from "../core/options.js";
import type { TokenReader } from "../corpus/vertical.js";
import { finishString, hashSequence, hashString, mixA, mixB, STRING_SEED_A, STRING_SEED_B } from "./hash.js";
import { normalizeToken, normalizeUnicode } from "./normalize.js";
import { growableF64, growableU32, type GrowableArray } from "../util/typed-arrays.js";

/**
 * Term counts of one document: distinct term hashes in order of first occurrence (so any
 * later floating-point sum over them is the same on every run) with their counts.
 */
export interface TermCounts {
  terms: number[];
  counts: number[];
  /** Tokens kept after normalisation. */
  kept: number;
}

/** What `tokenHash` gives for a token that normalisation drops (hashes are ≥ 0). */
export const DROPPED = -1;

/** The hash of a token's normalised term, or DROPPED. */
export function termHash(token: string, opts: NormalizeOptions): number {
  const norm = normalizeToken(token, opts);
  return norm === null ? DROPPED : hashString(norm);
}

/** Hashes of the kept tokens of a document, in order. */
export function tokenHashes(tokens: readonly string[], opts: NormalizeOptions): number[] {
  return keptHashes(tokens.map((t) => termHash(t, opts)));
}

/**
 * What each code point below 0x800 (those of 1- and 2-byte UTF-8) becomes in a term under
 * `opts` (normalised, then lowercased if asked), as one code unit; 0 where the string path
 * must decide: a combining mark or an invisible character (normalisation joins or removes
 * it, depending on its neighbours), a code point the form maps to other than one code unit,
 * one whose lowercase is not one code unit (U+0130 gives two), and Σ, whose lowercase
 * depends on its neighbours. Other code points change alone, so a token made of them is
 * normalised code point by code point (test/features/terms.test.ts checks every pair).
 */
export function twoByteTable(opts: Pick<NormalizeOptions, "normalize" | "lowercase">): Uint16Array {
  const key = `${opts.normalize} ${String(opts.lowercase)}`;
  let table = twoByteTables.get(key);
  if (table === undefined) {
    table = new Uint16Array(0x800);
    for (let c = 1; c < 0x800; c++) {
      const s = String.fromCharCode(c);
      if (/[\p{M}\p{Default_Ignorable_Code_Point}]/u.test(s)) continue;
      const form = normalizeUnicode(s, opts.normalize);
      if (form.length !== 1 || (opts.lowercase && form === "Σ")) continue;
      const term = opts.lowercase ? form.toLowerCase() : form;
      if (term.length === 1) table[c] = term.charCodeAt(0);
    }
    twoByteTables.set(key, table);
  }
  return table;
}

const twoByteTables = new Map<string, Uint16Array>();

const TAB = 0x09;
const NL = 0x0a;

/**
 * `hashString(normalizeToken(token))`, or DROPPED, straight from the token's UTF-8 bytes.
 * Tokens of 1- and 2-byte characters that contain an ASCII letter (so no Unicode class test
 * is needed) or are all ASCII are decoded, normalised and lowercased (`twoByteTable`) and
 * hashed code unit by code unit as they are decoded, without a string; any other token is
 * decoded and takes the string path, so the hashes are those of `tokenHashes` exactly.
 */
export class TokenHasher {
  /** Where the last `hashWord` stopped: at the tab or newline that ends the token, or at the limit. */
  end = 0;

  private readonly table: Uint16Array;

  constructor(private readonly opts: NormalizeOptions) {
    this.table = twoByteTable(opts);
  }

  /**
   * The hash of the token that starts at `start` and ends at the first tab or newline before
   * `limit` (or at `limit`), which it reads once, as the parser's line scan would.
   */
  hashWord(bytes: Buffer, start: number, limit: number): number {
    const lowercase = this.opts.lowercase;
    let a = STRING_SEED_A;
    let b = STRING_SEED_B;
    let letter = false;
    let digit = false;
    let other = false;
    let ascii = true;
    let n = 0;
    let i = start;
    for (; i < limit; i++) {
      let c = bytes[i];
      if (c < 0x80) {
        const folded = c | 0x20;
        if (folded >= 0x61 && folded <= 0x7a) {
          letter = true;
          if (lowercase) c = folded;
        } else if (c >= 0x30 && c <= 0x39) digit = true;
        else if (c === TAB || c === NL) break;
        else other = true;
      } else if (c < 0xe0) {
        // A 2-byte sequence (the chunk is valid UTF-8).
        c = ((c & 0x1f) << 6) | (bytes[++i] & 0x3f);
        c = this.table[c];
        if (c === 0) return this.viaString(bytes, start, i, limit);
        ascii = false;
      } else return this.viaString(bytes, start, i, limit);
      a = mixA(a, c);
      b = mixB(b, c);
      n++;
    }
    this.end = i;
    if (!letter) {
      // Without an ASCII letter the Unicode classes decide; for ASCII, \p{L} is a letter
      // and \p{N} a digit: drop tokens with neither, and digit-only ones unless kept.
      if (!ascii) return this.viaString(bytes, start, i, limit);
      if (!digit || (!this.opts.keepNumbers && !other)) return DROPPED;
    }
    return finishString(a, b, n);
  }

  /** The string path for the token at `start`, read up to `from` so far. */
  private viaString(bytes: Buffer, start: number, from: number, limit: number): number {
    let end = from;
    while (end < limit && bytes[end] !== TAB && bytes[end] !== NL) end++;
    this.end = end;
    return termHash(bytes.toString("utf8", start, end), this.opts);
  }
}

/** `TokenHasher.hashWord` as a token reader of the column value [start, end). */
export function tokenHash(opts: NormalizeOptions): TokenReader<number> {
  const hasher = new TokenHasher(opts);
  return (bytes, start, end) => hasher.hashWord(bytes, start, end);
}

/** The kept hashes of a token-hash sequence (DROPPED entries left out), in order. */
export function keptHashes(hashes: readonly number[]): number[] {
  const out: number[] = [];
  for (const h of hashes) if (h !== DROPPED) out.push(h);
  return out;
}

/** k-shingles of a token-hash sequence, in order (the sequence itself when k = 1). */
export function shingles(hashes: number[], k: number): number[] {
  if (k === 1) return hashes;
  const out: number[] = [];
  for (let i = 0; i + k <= hashes.length; i++) out.push(hashSequence(hashes, i, k));
  return out;
}

/** Open-addressing scratch of `countInto` (keys stored + 1, 0 = empty), reused across calls. */
let slotKeys = new Float64Array(1024);
let slotAt = new Int32Array(1024);

/**
 * Appends the distinct values of sequence[from, to) to `terms`, in order of first
 * occurrence, and their numbers of occurrences to `counts`; returns how many were appended.
 */
export function countInto(sequence: ArrayLike<number>, from: number, to: number, terms: GrowableArray<Float64Array>, counts: GrowableArray<Uint32Array>): number {
  let size = 16;
  while (size < (to - from) * 2) size *= 2;
  if (slotKeys.length < size) {
    slotKeys = new Float64Array(size);
    slotAt = new Int32Array(size);
  } else slotKeys.fill(0, 0, size);
  const keys = slotKeys;
  const mask = size - 1;
  const first = terms.length;
  // Room for every value distinct, so that the arrays are not reallocated in the loop.
  const termValues = terms.reserve(to - from);
  const countValues = counts.reserve(to - from);
  let m = first;
  for (let k = from; k < to; k++) {
    const h = sequence[k];
    const stored = h + 1;
    let i = ((h >>> 0) ^ Math.imul(Math.floor(h / 0x1_0000_0000), 0x9e3779b1)) & mask;
    while (keys[i] !== 0 && keys[i] !== stored) i = (i + 1) & mask;
    if (keys[i] === 0) {
      keys[i] = stored;
      slotAt[i] = m;
      termValues[m] = h;
      countValues[m++] = 1;
    } else countValues[slotAt[i]]++;
  }
  terms.length = m;
  counts.length = m;
  return m - first;
}

export function countTerms(sequence: readonly number[]): { terms: number[]; counts: number[] } {
  const terms = growableF64(sequence.length);
  const counts = growableU32(sequence.length);
  countInto(sequence, 0, sequence.length, terms, counts);
  return { terms: Array.from(terms.view()), counts: Array.from(counts.view()) };
}

/** Term counts of a document's kept token hashes. */
export function countsOfHashes(kept: number[], shingleSize: number): TermCounts {
  return { ...countTerms(shingles(kept, shingleSize)), kept: kept.length };
}

export function termCounts(tokens: readonly string[], opts: TermOptions): TermCounts {
  return countsOfHashes(tokenHashes(tokens, opts), opts.shingleSize);
}
