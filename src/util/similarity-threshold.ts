/**
 * How a computed similarity (cosine or Jaccard) meets a threshold, the same at every site
 * (exact references, `--verify`, calibration, the set methods).
 *
 * A cosine is a sum of floating-point products: for two identical documents it comes out
 * one or a few ulps away from 1 (0.9999999999999998), so a plain `s >= 1` lost half of the
 * identical pairs, and a pair whose true similarity equals the threshold could be lost the
 * same way. Two rules fix that:
 * - `unitCosine`: a cosine within SIMILARITY_TOLERANCE of 1 is 1 (and never more), so
 *   identical vectors have cosine exactly 1;
 * - `meetsThreshold`: a value meets a threshold when it is at least threshold −
 *   SIMILARITY_TOLERANCE.
 *
 * SIMILARITY_TOLERANCE is 2^-40 ≈ 9.1e-13: about 4,096 ulps of 1, far above the rounding of
 * a dot product of unit vectors over thousands of terms (each product adds at most half
 * an ulp of the running sum), and far below any difference a threshold given in decimal
 * digits can express, so no pair whose computed similarity is genuinely below the threshold
 * is taken in.
 */
export const SIMILARITY_TOLERANCE = 2 ** -40;

/** A computed cosine of unit vectors: at most 1, and exactly 1 within the tolerance. */
export function unitCosine(dot: number): number {
  return dot >= 1 - SIMILARITY_TOLERANCE ? 1 : dot;
}

/** Whether a computed similarity meets the threshold, up to the rounding tolerance. */
export function meetsThreshold(value: number, threshold: number): boolean {
  return value >= threshold - SIMILARITY_TOLERANCE;
}
