import type { Random } from "./random.js";

/**
 * Zipf's law over ranks 0 … V−1: P(r) ∝ 1/(r+offset)^s (offset 1: word ranks; offset 2:
 * cluster sizes r+2 ≥ 2 of a power law). Sampling inverts the cumulative distribution by
 * binary search (⌈log2 V⌉ steps, no per-draw allocation).
 */
export class ZipfSampler {
  private readonly cdf: Float64Array;

  constructor(readonly size: number, exponent: number, offset = 1) {
    this.cdf = new Float64Array(size);
    let sum = 0;
    for (let r = 0; r < size; r++) {
      sum += 1 / Math.pow(r + offset, exponent);
      this.cdf[r] = sum;
    }
    for (let r = 0; r < size; r++) this.cdf[r] /= sum;
  }

  /** A rank: the first r with cdf[r] > u. */
  sample(random: Random): number {
    const u = random.uniform();
    const cdf = this.cdf;
    let lo = 0;
    let hi = this.size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

const ONSETS = ["", "b", "c", "č", "d", "h", "ch", "j", "k", "l", "m", "n", "p", "r", "ř", "s", "š", "t", "v", "z", "ž", "st", "pr", "tr", "kr", "sl"];
const VOWELS = ["a", "e", "i", "o", "u", "y", "á", "é", "í", "ů", "ou", "ě"];
const CODAS = ["", "", "", "n", "s", "l", "k", "m", "t", "ch"];

/**
 * V distinct word forms, the frequent ones short: rank r gets about 1 + log10(r+1)/1.6
 * syllables of Czech-looking letters (so the normaliser's \p{L} test and lowercasing see
 * non-ASCII text, as in the thesis's corpora).
 */
export function wordForms(size: number, random: Random): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  while (out.length < size) {
    const syllables = 1 + Math.floor(Math.log10(out.length + 1) / 1.6) + random.below(2);
    let w = "";
    for (let s = 0; s < syllables; s++) {
      w += ONSETS[random.below(ONSETS.length)] + VOWELS[random.below(VOWELS.length)] + CODAS[random.below(CODAS.length)];
    }
    if (!seen.has(w)) {
      seen.add(w);
      out.push(w);
    }
  }
  return out;
}
