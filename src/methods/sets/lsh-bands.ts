import { VertdupError } from "../../core/errors.js";

/** Probability that two sets of Jaccard s share at least one of `bands` bands of `rows` minhashes. */
export function candidateProbability(s: number, bands: number, rows: number): number {
  return 1 - Math.pow(1 - Math.pow(s, rows), bands);
}

function integrate(f: (s: number) => number, from: number, to: number, steps = 200): number {
  const h = (to - from) / steps;
  let sum = (f(from) + f(to)) / 2;
  for (let i = 1; i < steps; i++) sum += f(from + i * h);
  return sum * h;
}

/**
 * Weight of missed pairs against needless candidates. Candidates are verified with the
 * exact Jaccard, so a false candidate costs only time while a missed pair is lost: the
 * choice leans strongly towards recall.
 */
const MISS_WEIGHT = 0.98;

/**
 * Bands × rows (bands · rows ≤ numPerm) minimising the weighted area of false candidates
 * below the threshold and of missed pairs above it (the usual choice of MinHash LSH).
 */
export function bandsForThreshold(threshold: number, numPerm: number): { bands: number; rows: number } {
  let best = { bands: 1, rows: numPerm, cost: Number.POSITIVE_INFINITY };
  for (let bands = 1; bands <= numPerm; bands++) {
    for (let rows = 1; bands * rows <= numPerm; rows++) {
      const falsePositive = integrate((s) => candidateProbability(s, bands, rows), 0, threshold);
      const missed = integrate((s) => 1 - candidateProbability(s, bands, rows), threshold, 1);
      const cost = (1 - MISS_WEIGHT) * falsePositive + MISS_WEIGHT * missed;
      if (cost < best.cost) best = { bands, rows, cost };
    }
  }
  return { bands: best.bands, rows: best.rows };
}

/** Bands and rows as given, or derived from the threshold; checked against numPerm. */
export function resolveBands(threshold: number, numPerm: number, bands?: number, rows?: number): { bands: number; rows: number } {
  if (bands === undefined && rows === undefined) return bandsForThreshold(threshold, numPerm);
  const b = bands ?? Math.floor(numPerm / (rows as number));
  const r = rows ?? Math.floor(numPerm / (bands as number));
  if (!Number.isInteger(b) || !Number.isInteger(r) || b < 1 || r < 1 || b * r > numPerm) {
    throw new VertdupError(`--bands × --rows must be positive integers with bands · rows <= --num-perm (${numPerm}), got ${b} × ${r}`);
  }
  return { bands: b, rows: r };
}

/** A split of the permutations into bands × rows, and its S-curve's value at a threshold. */
export interface Banding {
  bands: number;
  rows: number;
  /** 1 − (1 − s^rows)^bands at the threshold s: the chance that a pair that similar becomes a candidate. */
  probability: number;
}

/**
 * The split of `numPerm` permutations with the most rows (the fewest needless candidates)
 * whose S-curve reaches `target` at `threshold` — and so at every higher Jaccard, the curve
 * rising —, with as many bands as fit (⌊numPerm / rows⌋); undefined when not even one row
 * per band does.
 */
export function bandsForRecall(threshold: number, numPerm: number, target: number): Banding | undefined {
  for (let rows = numPerm; rows >= 1; rows--) {
    const bands = Math.floor(numPerm / rows);
    const probability = candidateProbability(threshold, bands, rows);
    if (probability >= target) return { bands, rows, probability };
  }
  return undefined;
}
