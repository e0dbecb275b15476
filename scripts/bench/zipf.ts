import type { Random } from "./random.js";

const GUIDE = 1 << 16;

/**
 * Zipf's law over ranks 0 … V−1: P(r) ∝ 1/(r+offset)^s (offset 1: word ranks; offset 2:
 * cluster sizes r+2 ≥ 2 of a power law). Sampling inverts the cumulative distribution by
 * binary search, started from a guide table: the draw's top 16 bits name the ranks its
 * inverse can fall in, so most draws (the frequent ranks) take no step at all. The result is
 * the plain binary search's: the first r with cdf[r] > u.
 */
export class ZipfSampler {
  private readonly cdf: Float64Array;
  /** guide[k]: the first r with cdf[r] > k/GUIDE (size − 1 if none); k = 0 … GUIDE. */
  private readonly guide: Int32Array;

  constructor(readonly size: number, exponent: number, offset = 1) {
    this.cdf = new Float64Array(size);
    let sum = 0;
    for (let r = 0; r < size; r++) {
      sum += 1 / Math.pow(r + offset, exponent);
      this.cdf[r] = sum;
    }
    for (let r = 0; r < size; r++) this.cdf[r] /= sum;
    this.guide = new Int32Array(GUIDE + 1);
    let r = 0;
    for (let k = 0; k <= GUIDE; k++) {
      while (r < size - 1 && !(this.cdf[r] > k / GUIDE)) r++;
      this.guide[k] = r;
    }
  }

  /** A rank: the first r with cdf[r] > u (u = 32 random bits / 2^32). */
  sample(random: Pick<Random, "uint32">): number {
    const bits = random.uint32();
    const u = bits / 0x1_0000_0000;
    const cdf = this.cdf;
    // u ∈ [k/GUIDE, (k+1)/GUIDE): the answer lies in [guide[k], guide[k+1]].
    const k = bits >>> 16;
    let lo = this.guide[k];
    let hi = this.guide[k + 1];
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
