/** A proportion with its two-sided confidence interval. */
export interface Proportion {
  /** successes / trials; NaN without trials. */
  estimate: number;
  low: number;
  high: number;
}

/** The standard normal quantile of 0.975: two-sided 95 % intervals. */
export const Z95 = 1.959963984540054;

/**
 * The Wilson score interval of a binomial proportion (Wilson 1927): the p whose normal test
 * of `successes` out of `trials` is not rejected at z. Unlike p̂ ± z·√(p̂(1−p̂)/n) it stays
 * in [0, 1] and does not shrink to a point at p̂ = 0 or 1, where recall estimates live.
 * Without trials nothing is known: [0, 1] around NaN.
 */
export function wilsonInterval(successes: number, trials: number, z = Z95): Proportion {
  if (!(Number.isInteger(successes) && Number.isInteger(trials) && successes >= 0 && successes <= trials)) {
    throw new RangeError(`wilsonInterval: need 0 ≤ successes ≤ trials (integers), got ${successes} of ${trials}`);
  }
  if (trials === 0) return { estimate: NaN, low: 0, high: 1 };
  const p = successes / trials;
  const { low, high } = wilsonScore(p, trials, z);
  // At p̂ = 0 or 1 the bound on that side is exactly p̂ (rounding would put it a hair off).
  return { estimate: p, low: successes === 0 ? 0 : low, high: successes === trials ? 1 : high };
}

/** Wilson's interval around a proportion p of `trials` trials, which may be an effective, non-integer number (> 0). */
export function wilsonScore(p: number, trials: number, z = Z95): Proportion {
  if (!(trials > 0)) return { estimate: p, low: 0, high: 1 };
  const z2 = z * z;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (z / (1 + z2 / trials)) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return { estimate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
