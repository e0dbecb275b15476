import { clopperPearson, studentT975, Z95, type Proportion } from "../util/binomial-interval.js";
import { sampleWithin } from "./document-sample.js";

/**
 * The stratified document sample of a calibration (README "Calibrating"): strata from the
 * run's clusters (stratum 0: documents alone; 1…: documents in clusters of 2, 3–4, 5–8,
 * 9–16, ≥ 17), fixed before the sample is drawn, so every estimate below is design-unbiased
 * whatever the strata say about the pairs.
 */
export interface StratifiedDesign {
  /** Stratum of each document. */
  stratumOf: Uint8Array;
  /** Documents in each stratum (N_h). */
  population: Float64Array;
  /** Documents drawn from each stratum (n_h). */
  drawn: Float64Array;
}

const STRATA = 6;

/** What each stratum holds, for people (manifest.json's `strata` lists them in this order). */
export const STRATUM_NAMES: readonly string[] = ["documents alone", "in clusters of 2", "of 3–4", "of 5–8", "of 9–16", "of ≥ 17"];

/** Stratum of a document in a cluster of `size` documents (0: alone). */
function stratumOfSize(size: number): number {
  if (size < 2) return 0;
  return Math.min(STRATA - 1, Math.ceil(Math.log2(size)));
}

/**
 * Allocation of `size` draws: half to the documents alone (their pairs are the ones the run
 * missed, and nothing before the exact pass says which have any), the rest to the clustered
 * strata in proportion to their documents N_h. Not by Neyman's rule on the pairs a document
 * brings to its cluster (n_h ∝ N_h × rms(size − 1), until issue 30): that spent most draws on
 * the largest clusters, whose pairs the run finds, and left a few to the small ones, where a
 * run that joins only near-exact copies (simhash384) misses the pairs between two clusters of
 * copies; a sample that met none of those showed no misses there and an interval too narrow
 * (docs/calibration.md). At least 2 per stratum that has 2 documents (a variance needs them),
 * never more than N_h; what a stratum cannot take goes to the others.
 */
export function allocate(population: Float64Array, size: number): Float64Array {
  const drawn = new Float64Array(population.length);
  let total = 0;
  for (const n of population) total += n;
  let left = Math.min(size, total);
  for (let h = 0; h < population.length; h++) {
    drawn[h] = Math.min(population[h], 2, left);
    left -= drawn[h];
  }
  // Shares: half to stratum 0 (or what it can take), the clustered strata by N_h.
  while (left > 0) {
    const open = [...population.keys()].filter((h) => drawn[h] < population[h]);
    if (open.length === 0) break;
    let clustered = 0;
    for (const h of open) if (h > 0) clustered += population[h];
    const zeroShare = open.includes(0) ? (clustered > 0 ? 0.5 : 1) : 0;
    let given = 0;
    for (const h of open) {
      const share = h === 0 ? zeroShare : clustered > 0 ? ((1 - zeroShare) * population[h]) / clustered : 0;
      const add = Math.min(population[h] - drawn[h], Math.floor(left * share));
      drawn[h] += add;
      given += add;
    }
    if (given === 0) {
      // Rounding left a few draws: one each, in stratum order.
      for (const h of open) if (left - given > 0 && drawn[h] < population[h]) (drawn[h]++, given++);
    }
    left -= given;
  }
  return drawn;
}

/** The design for a run's clusters (clusterOf: 0 for a document alone) and `size` draws. */
export function stratifiedDesign(clusterOf: Uint32Array, size: number): StratifiedDesign {
  let clusters = 0;
  for (const c of clusterOf) clusters = Math.max(clusters, c);
  const members = new Uint32Array(clusters + 1);
  for (const c of clusterOf) members[c]++;
  const stratumOf = new Uint8Array(clusterOf.length);
  const population = new Float64Array(STRATA);
  for (let d = 0; d < clusterOf.length; d++) {
    const h = stratumOfSize(clusterOf[d] === 0 ? 1 : members[clusterOf[d]]);
    stratumOf[d] = h;
    population[h]++;
  }
  return { stratumOf, population, drawn: allocate(population, size) };
}

/** The sample of a design: n_h documents of each stratum, uniformly (Floyd's algorithm per stratum). */
export function drawStratified(design: StratifiedDesign, seed: number): Uint8Array {
  return sampleWithin(design.stratumOf, design.drawn, seed);
}

/**
 * The share of a pair that each of its documents brings (multiplicity weights, Birnbaum and
 * Sirken 1965): π_a / (π_a + π_b) to document a of stratum ha, π = n_h/N_h its chance to be
 * drawn. The two shares sum to 1, so Σ_h (N_h/n_h) Σ share over the sampled documents is
 * unbiased for the pairs whatever the shares; these make a pair weigh 1 / (π_a + π_b) from
 * either side, so that a pair between a document alone (rarely drawn, weight N_0/n_0) and a
 * clustered one (often drawn) is counted mostly through the clustered one: the misses the run
 * left between them no longer hang on drawing the rare document alone (README "Calibrating").
 */
export function pairShare(design: StratifiedDesign): (ha: number, hb: number) => number {
  const chance = design.population.map((n, h) => (n === 0 ? 0 : design.drawn[h] / n));
  return (ha, hb) => (ha === hb ? 0.5 : chance[ha] / (chance[ha] + chance[hb]));
}

/**
 * The combined ratio estimate R̂ = Σ_h (N_h/n_h) Σ y_d / Σ_h (N_h/n_h) Σ x_d over the sampled
 * documents (`docs`, with their y and x) and its 95 % interval. Documents are the units, so
 * the pairs of one document count as one draw, not as independent ones.
 * - Variance by the delta method (Cochran 1977, 6.11): v̂ = Σ_h a_h s²_h / X̂², a_h =
 *   N_h² (1 − n_h/N_h) / n_h, s²_h the sample variance of the residuals e = y − R̂x in stratum h.
 * - Effective trials (Korn and Graubard 1998): n* = R̂(1 − R̂)/v̂, the binomial sample whose
 *   proportion would be as variable (the pairs counted over the design effect), at most the
 *   pairs counted (`pairs`); at R̂ = 0 or 1 (no variance to measure) the sampled documents
 *   with x > 0.
 * - Degrees of freedom: v̂ is itself an estimate, poor where a stratum's variance comes from a
 *   few large residuals — a recall whose misses are rare: the sample met a handful of the
 *   documents that carry them, and a sample that met none shows none. Satterthwaite's
 *   (1946) df = 2 V̂² / Var(V̂), V̂ = Σ_h a_h s²_h, with Var(s²_h) ≈ (m4_h − m2_h²(n_h − 3)/(n_h − 1))/n_h
 *   from the residuals' own fourth moment m4_h (at most n − H, the design's), shrinks n* by
 *   (z/t_df)², as Korn and Graubard do with the design's df.
 * - Interval: Clopper–Pearson at n*·(z/t_df)² trials with R̂ of them successes (Beta
 *   quantiles, clopperPearson): unlike Wilson's it keeps its 95 % in the tail of few effective
 *   misses, where the estimate's distribution is skewed.
 * Checked by simulation (scripts/quality/calibration-coverage.ts, README "Calibrating").
 * `trials`: the number of trials of that interval (0 without any pair); `spread`: each
 * stratum's residual standard deviation.
 */
export function stratifiedRatio(design: StratifiedDesign, docs: Uint32Array, y: Float64Array, x: Float64Array, pairs: number): Proportion & { trials: number; spread: Float64Array } {
  const strata = design.population.length;
  const weight = design.population.map((n, h) => (design.drawn[h] === 0 ? 0 : n / design.drawn[h]));
  let sy = 0;
  let sx = 0;
  let units = 0;
  for (let k = 0; k < docs.length; k++) {
    const w = weight[design.stratumOf[docs[k]]];
    sy += w * y[k];
    sx += w * x[k];
    if (x[k] > 0) units++;
  }
  const spread = new Float64Array(strata);
  if (sx === 0) return { estimate: NaN, low: 0, high: 1, trials: 0, spread };
  const r = sy / sx;
  const sum = new Float64Array(strata);
  const sq = new Float64Array(strata);
  for (let k = 0; k < docs.length; k++) {
    const h = design.stratumOf[docs[k]];
    const e = y[k] - r * x[k];
    sum[h] += e;
    sq[h] += e * e;
  }
  // Fourth central moments: how well each s²_h is known (few large residuals: poorly).
  const fourth = new Float64Array(strata);
  for (let k = 0; k < docs.length; k++) {
    const h = design.stratumOf[docs[k]];
    fourth[h] += (y[k] - r * x[k] - sum[h] / design.drawn[h]) ** 4;
  }
  // V̂ = Σ_h a_h s²_h, the variance of Ŷ − R̂X̂, and its own variance.
  let big = 0;
  let vv = 0;
  for (let h = 0; h < strata; h++) {
    const n = design.drawn[h];
    const size = design.population[h];
    if (n < 2) continue;
    const s2 = Math.max(0, (sq[h] - (sum[h] * sum[h]) / n) / (n - 1));
    spread[h] = Math.sqrt(s2);
    if (n >= size) continue;
    const a = (size * size * (1 - n / size)) / n;
    big += a * s2;
    const m2 = ((n - 1) / n) * s2;
    vv += a * a * Math.max(0, (fourth[h] / n - (m2 * m2 * (n - 3)) / (n - 1)) / n);
  }
  const v = big / (sx * sx);
  const degenerate = r <= 0 || r >= 1;
  const effective = degenerate ? units : v > 0 ? Math.min(pairs, (r * (1 - r)) / v) : pairs;
  // Degrees of freedom of the variance (Satterthwaite 1946 with the residuals' own kurtosis):
  // 2V²/Var(V̂), at most Korn and Graubard's n − H. Rare large residuals make it small.
  let strataDrawn = 0;
  for (let h = 0; h < strata; h++) if (design.drawn[h] > 0) strataDrawn++;
  const designDf = docs.length - strataDrawn;
  const df = vv > 0 ? Math.max(1, Math.min(designDf, (2 * big * big) / vv)) : designDf;
  const trials = df > 0 && !degenerate ? effective * (Z95 / studentT975(df)) ** 2 : effective;
  const interval = clopperPearson(Math.min(trials, r * trials), trials);
  return { estimate: r, low: interval.low, high: interval.high, trials, spread };
}

/**
 * Where the next `size` draws of a growing sample go (README "Calibrating", --max-width):
 * half as the design already drew (so that no stratum is starved on the evidence of a few
 * draws: a stratum whose rare pairs the sample has not met yet shows no spread), half by
 * Neyman's rule n_h ∝ N_h·S_h with S_h the spread measured so far (`spread`: the residuals'
 * standard deviation in each stratum at the widest interval), never more than a stratum has
 * left; what one cannot take goes to the others, in stratum order.
 */
export function growthAllocation(design: StratifiedDesign, spread: Float64Array, size: number): Float64Array {
  const strata = design.population.length;
  const add = new Float64Array(strata);
  let drawn = 0;
  let neyman = 0;
  for (let h = 0; h < strata; h++) {
    drawn += design.drawn[h];
    neyman += design.population[h] * spread[h];
  }
  let given = 0;
  for (let h = 0; h < strata; h++) {
    const share = (drawn > 0 ? design.drawn[h] / drawn : 0) * (neyman > 0 ? 0.5 : 1) + (neyman > 0 ? (0.5 * design.population[h] * spread[h]) / neyman : 0);
    add[h] = Math.min(design.population[h] - design.drawn[h], Math.floor(size * share));
    given += add[h];
  }
  for (let h = 0; h < strata && given < size; h++) {
    const more = Math.min(design.population[h] - design.drawn[h] - add[h], size - given);
    add[h] += more;
    given += more;
  }
  return add;
}

/**
 * Kish's effective sample size of a stratified design, (Σ_h N_h)² / Σ_h N_h²/n_h over the
 * strata drawn from: the size of a uniform sample whose weights would give a mean over the
 * documents the same variance (Kish 1965) — fewer than drawn when the strata are sampled
 * unevenly. For the recall the interval's own effective number of trials (calibration.tsv)
 * is the one that counts: the strata put the draws where the pairs are.
 */
export function kishEffectiveSize(population: readonly number[], drawn: readonly number[]): number {
  let total = 0;
  let sum = 0;
  for (let h = 0; h < population.length; h++) {
    if (drawn[h] === 0) continue;
    total += population[h];
    sum += (population[h] * population[h]) / drawn[h];
  }
  return sum === 0 ? 0 : (total * total) / sum;
}
