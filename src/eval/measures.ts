/**
 * The thesis's evaluation measures.
 *
 * Retrieval (reference R = the pairs that should be found, candidate C = the pairs found,
 * TP = |R ∩ C|):
 *   precision P = TP / |C|   (1 when C is empty: nothing wrong was reported)
 *   recall    R = TP / |R|   (1 when R is empty: nothing was missed)
 *   F = 2PR / (P + R)        (0 when P + R = 0)
 *
 * Approximation quality, over compared pairs k = 1..m with exact cosine c_k and relative
 * Hamming similarity h_k (both fractions):
 *   L1 = (1/m) Σ |h_k − c_k|            (mean absolute deviation)
 *   L2 = (1/m) Σ (h_k − c_k)²           (mean squared deviation)
 *   S: the pairs are put in bins of cosine of width `binWidth` (0.01: bin ⌊c/0.01⌋, c = 1 in
 *      the last bin); in each bin with at least two pairs the population standard deviation
 *      of h is taken, σ_b = √((1/m_b) Σ_{k∈b} (h_k − h̄_b)²); S is the unweighted mean of σ_b
 *      over those bins. It is the mean "thickness" of the Hamming-vs-cosine scatter (the
 *      thesis's Figure 2.5): how far apart Hamming similarities lie at one cosine.
 * The thesis quotes all three on a 0–100 scale (L1 in points, L2 in points², S in points);
 * multiply by 100, 10⁴, 100 to compare.
 */

export interface Retrieval {
  reference: number;
  candidate: number;
  truePositives: number;
  precision: number;
  recall: number;
  f: number;
}

export function retrieval(reference: number, candidate: number, truePositives: number): Retrieval {
  const precision = candidate === 0 ? 1 : truePositives / candidate;
  const recall = reference === 0 ? 1 : truePositives / reference;
  const f = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { reference, candidate, truePositives, precision, recall, f };
}

export interface Deviation {
  pairs: number;
  l1: number;
  l2: number;
  s: number;
  /** Bins that had at least two pairs (those S averages over). */
  bins: number;
}

export const DEFAULT_BIN_WIDTH = 0.01;

/** L1, L2 and S accumulated pair by pair (the compared pairs are never held). */
export class DeviationSum {
  private m = 0;
  private l1 = 0;
  private l2 = 0;
  /** Per bin of cosine (at most 1/binWidth of them): count, Σh, Σh². */
  private readonly bins = new Map<number, { n: number; sum: number; sq: number }>();
  private readonly lastBin: number;

  constructor(private readonly binWidth = DEFAULT_BIN_WIDTH) {
    this.lastBin = Math.ceil(1 / binWidth) - 1;
  }

  add(c: number, h: number): void {
    const e = h - c;
    this.m++;
    this.l1 += Math.abs(e);
    this.l2 += e * e;
    const bin = Math.min(this.lastBin, Math.floor(c / this.binWidth));
    const b = this.bins.get(bin) ?? { n: 0, sum: 0, sq: 0 };
    b.n++;
    b.sum += h;
    b.sq += h * h;
    this.bins.set(bin, b);
  }

  result(): Deviation {
    let spread = 0;
    let used = 0;
    for (const b of this.bins.values()) {
      if (b.n < 2) continue;
      const mean = b.sum / b.n;
      spread += Math.sqrt(Math.max(0, b.sq / b.n - mean * mean));
      used++;
    }
    const m = this.m;
    return { pairs: m, l1: m === 0 ? 0 : this.l1 / m, l2: m === 0 ? 0 : this.l2 / m, s: used === 0 ? 0 : spread / used, bins: used };
  }
}

/** L1, L2 and S of Hamming similarities h against cosines c (parallel arrays). */
export function deviation(c: ArrayLike<number>, h: ArrayLike<number>, binWidth = DEFAULT_BIN_WIDTH): Deviation {
  if (h.length !== c.length) throw new RangeError(`${c.length} cosines but ${h.length} Hamming similarities`);
  const sum = new DeviationSum(binWidth);
  for (let k = 0; k < c.length; k++) sum.add(c[k], h[k]);
  return sum.result();
}
