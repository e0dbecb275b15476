/** The expected share of pairs at exactly the cosine threshold that PLEB's candidates may lose. */
export const CANDIDATE_LOSS = 0.01;

/**
 * The relative Hamming threshold of PLEB's candidates for exact verification at cosine ≥
 * `cosine` with `bits`-bit signatures. Two vectors at angle θ = arccos(c) differ on each
 * random-hyperplane bit with probability q = θ/π (Charikar), so their Hamming distance is
 * binomial(bits, q): mean bits·q, spread √(bits·q(1 − q)). The threshold is 1 − D/bits for
 * the smallest D with P(distance ≤ D) ≥ 1 − `loss`, so at most 1 % of the pairs at exactly
 * c (and fewer of those above c, which differ in fewer bits) fall outside it. That is
 * p − 2.33·√(p(1 − p)/bits) with p = 1 − q, rounded outward to a whole distance (the normal
 * approximation alone loses up to 1.3 %). 1024 bits, c = 0.9: q = 0.1436, mean distance 147.0,
 * spread 11.2, D = 174, threshold 0.8301.
 */
export function candidateThreshold(cosine: number, bits: number, loss = CANDIDATE_LOSS): number {
  if (!(cosine > 0 && cosine <= 1)) throw new RangeError(`cosine threshold must be in (0, 1], got ${cosine}`);
  const q = Math.acos(cosine) / Math.PI;
  if (q === 0) return 1;
  // log P(distance = d), from d = 0 up (in logs: q^bits underflows for long signatures).
  let logP = bits * Math.log1p(-q);
  let below = 0;
  for (let d = 0; d <= bits; d++) {
    below += Math.exp(logP);
    if (below >= 1 - loss) return 1 - d / bits;
    logP += Math.log((bits - d) / (d + 1)) + Math.log(q / (1 - q));
  }
  return 0;
}
