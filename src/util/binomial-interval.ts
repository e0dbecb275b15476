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

/** Wilson's interval around a proportion p of `trials` trials (> 0). */
function wilsonScore(p: number, trials: number, z = Z95): Proportion {
  if (!(trials > 0)) return { estimate: p, low: 0, high: 1 };
  const z2 = z * z;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (z / (1 + z2 / trials)) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return { estimate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms: about 15 significant digits). */
function logGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const y = x - 1;
  let sum = c[0];
  for (let k = 1; k < 9; k++) sum += c[k] / (y + k);
  const t = y + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** The continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = 1 / (Math.abs(d) < tiny ? tiny : d);
  let f = d;
  for (let m = 1; m <= 10_000; m++) {
    for (const num of [(m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m)), (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))]) {
      d = 1 + num * d;
      d = 1 / (Math.abs(d) < tiny ? tiny : d);
      c = 1 + num / c;
      if (Math.abs(c) < tiny) c = tiny;
      f *= c * d;
    }
    if (Math.abs(c * d - 1) < 1e-15) break;
  }
  return f;
}

/** The regularised incomplete beta function I_x(a, b), a, b > 0: the CDF at x of Beta(a, b). */
export function betaCdf(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  // The fraction converges fast for x below the mean; above it, by I_x(a, b) = 1 − I_{1−x}(b, a).
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(x, a, b)) / a : 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** The q-quantile of Beta(a, b), by bisection of its CDF (monotone; to the last bit of a double). */
export function betaQuantile(q: number, a: number, b: number): number {
  let lo = 0;
  let hi = 1;
  for (let k = 0; k < 200 && hi - lo > 1e-16; k++) {
    const mid = (lo + hi) / 2;
    if (betaCdf(mid, a, b) < q) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The 0.975 quantile of Student's t with `df` > 0 degrees of freedom: P(|T| > t) = I_{df/(df+t²)}(df/2, 1/2). */
export function studentT975(df: number): number {
  const x = betaQuantile(0.05, df / 2, 0.5);
  return Math.sqrt((df * (1 - x)) / x);
}

/**
 * The Clopper–Pearson interval (1934) of `successes` out of `trials`, both possibly
 * effective, non-integer numbers (0 ≤ successes ≤ trials, trials > 0): the p whose binomial
 * tail beyond the count is at least 2.5 % on either side, by the Beta quantiles
 * [B(0.025; s, n − s + 1), B(0.975; s + 1, n − s)]; exactly 0 (1) on that side when no
 * (every) trial succeeded. Wider than Wilson's where the successes or the failures are few,
 * the tail a score interval gets short (Brown, Cai and DasGupta 2001).
 */
export function clopperPearson(successes: number, trials: number): Proportion {
  if (!(trials > 0 && successes >= 0 && successes <= trials)) {
    throw new RangeError(`clopperPearson: need 0 ≤ successes ≤ trials, trials > 0, got ${successes} of ${trials}`);
  }
  const p = successes / trials;
  const low = successes === 0 ? 0 : betaQuantile(0.025, successes, trials - successes + 1);
  const high = successes === trials ? 1 : betaQuantile(0.975, successes + 1, trials - successes);
  return { estimate: p, low: Math.min(low, p), high: Math.max(high, p) };
}
