import { hashSequence, hashString } from "./hash.js";
import { normalizeToken, type NormalizeOptions } from "./normalize.js";

export interface TermOptions extends NormalizeOptions {
  /** k consecutive kept tokens form one term (the thesis's `shingle_size`). */
  shingleSize: number;
}

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

/** Hashes of the kept tokens of a document, in order. */
export function tokenHashes(tokens: readonly string[], opts: NormalizeOptions): number[] {
  const out: number[] = [];
  for (const t of tokens) {
    const norm = normalizeToken(t, opts);
    if (norm !== null) out.push(hashString(norm));
  }
  return out;
}

/** k-shingles of a token-hash sequence, in order (the sequence itself when k = 1). */
export function shingles(hashes: number[], k: number): number[] {
  if (k === 1) return hashes;
  const out: number[] = [];
  for (let i = 0; i + k <= hashes.length; i++) out.push(hashSequence(hashes, i, k));
  return out;
}

export function countTerms(sequence: readonly number[]): { terms: number[]; counts: number[] } {
  const index = new Map<number, number>();
  const terms: number[] = [];
  const counts: number[] = [];
  for (const h of sequence) {
    const at = index.get(h);
    if (at === undefined) {
      index.set(h, terms.length);
      terms.push(h);
      counts.push(1);
    } else counts[at]++;
  }
  return { terms, counts };
}

export function termCounts(tokens: readonly string[], opts: TermOptions): TermCounts {
  const hashes = tokenHashes(tokens, opts);
  return { ...countTerms(shingles(hashes, opts.shingleSize)), kept: hashes.length };
}
