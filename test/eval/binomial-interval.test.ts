import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { betaCdf, clopperPearson, studentT975, wilsonInterval } from "../../src/util/binomial-interval.js";
import { stratifiedRatio, type StratifiedDesign } from "../../src/eval/stratified-sample.js";

/** Probability that the interval of k ~ Binomial(n, p) contains p, summed exactly over k. */
function coverage(p: number, n: number, interval: (k: number, n: number) => { low: number; high: number } = wilsonInterval): number {
  const logFactorial = [0];
  for (let i = 1; i <= n; i++) logFactorial.push(logFactorial[i - 1] + Math.log(i));
  let covered = 0;
  for (let k = 0; k <= n; k++) {
    const probability = Math.exp(logFactorial[n] - logFactorial[k] - logFactorial[n - k] + k * Math.log(p) + (n - k) * Math.log(1 - p));
    const { low, high } = interval(k, n);
    if (low <= p && p <= high) covered += probability;
  }
  return covered;
}

describe("wilsonInterval", () => {
  it("matches published values (Newcombe 1998: 81/263 → 0.2553–0.3662; 0/10 → 0–0.2775)", () => {
    const a = wilsonInterval(81, 263);
    expect(a.low).toBeCloseTo(0.2553, 4);
    expect(a.high).toBeCloseTo(0.3662, 4);
    expect(wilsonInterval(0, 10)).toEqual({ estimate: 0, low: 0, high: expect.closeTo(0.2775, 4) });
    expect(wilsonInterval(10, 10).low).toBeCloseTo(0.7225, 4);
  });

  it("needs 381 pairs, all found, for a lower bound of 0.99 (n / (n + z²))", () => {
    expect(wilsonInterval(380, 380).low).toBeLessThan(0.99);
    expect(wilsonInterval(381, 381).low).toBeGreaterThanOrEqual(0.99);
  });

  it("knows nothing without trials and refuses impossible counts", () => {
    const none = wilsonInterval(0, 0);
    expect(Number.isNaN(none.estimate)).toBe(true);
    expect([none.low, none.high]).toEqual([0, 1]);
    expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(1.5, 2)).toThrow(RangeError);
  });

  it("contains the estimate, stays in [0, 1] and narrows as the trials grow", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, share) => {
        const k = Math.round(share * n);
        const w = wilsonInterval(k, n);
        const wider = wilsonInterval(k, n);
        const bigger = wilsonInterval(4 * k, 4 * n);
        expect(0 <= w.low && w.low <= w.estimate && w.estimate <= w.high && w.high <= 1).toBe(true);
        expect(bigger.high - bigger.low).toBeLessThanOrEqual(wider.high - wider.low + 1e-12);
      }),
    );
  });

  it("covers the true proportion about 95 % of the time (exact binomial sums)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 30, max: 400 }), fc.double({ min: 0.02, max: 0.98, noNaN: true }), (n, p) => {
        expect(coverage(p, n)).toBeGreaterThan(0.91);
      }),
      { numRuns: 200 },
    );
    let sum = 0;
    let count = 0;
    for (const n of [30, 100, 300]) for (let p = 0.02; p < 0.99; p += 0.01, count++) sum += coverage(p, n);
    expect(Math.abs(sum / count - 0.95)).toBeLessThan(0.01);
  });
});

describe("clopperPearson", () => {
  it("matches published values (Newcombe 1998: 81/263 → 0.2527–0.3676; 0/10 → 0–0.3085) and its Beta and t quantiles", () => {
    const a = clopperPearson(81, 263);
    expect(a.low).toBeCloseTo(0.2527, 4);
    expect(a.high).toBeCloseTo(0.3676, 4);
    expect(clopperPearson(0, 10)).toEqual({ estimate: 0, low: 0, high: expect.closeTo(1 - 0.025 ** (1 / 10), 12) });
    expect(clopperPearson(10, 10)).toEqual({ estimate: 1, low: expect.closeTo(0.025 ** (1 / 10), 12), high: 1 });
    expect(betaCdf(0.3, 2.5, 7.5)).toBeCloseTo(0.678943485866182, 12);
    expect(studentT975(1)).toBeCloseTo(12.7062, 4);
    expect(studentT975(10)).toBeCloseTo(2.2281, 4);
    expect(studentT975(1e7)).toBeCloseTo(1.96, 4);
  });

  it("contains the estimate, stays in [0, 1] and narrows as the trials grow, at effective (non-integer) counts too", () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 1e6, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (n, share) => {
        const s = share * n;
        const c = clopperPearson(s, n);
        const bigger = clopperPearson(4 * s, 4 * n);
        expect(0 <= c.low && c.low <= c.estimate && c.estimate <= c.high && c.high <= 1).toBe(true);
        expect(bigger.high - bigger.low).toBeLessThan(c.high - c.low);
      }),
      { numRuns: 300 },
    );
    expect(() => clopperPearson(3, 2)).toThrow(RangeError);
    expect(() => clopperPearson(-1, 2)).toThrow(RangeError);
    expect(() => clopperPearson(0, 0)).toThrow(RangeError);
  });

  it("covers the true proportion at least 95 % of the time whatever it is (exact binomial sums)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.double({ min: 0.001, max: 0.999, noNaN: true }), (n, p) => {
        expect(coverage(p, n, clopperPearson)).toBeGreaterThanOrEqual(0.95 - 1e-9);
      }),
      { numRuns: 30 },
    );
  });
});

describe("stratifiedRatio's interval", () => {
  /** Two strata of 1,000 and 100 documents, `n` drawn from each, y ≤ x per document. */
  const sample = fc.integer({ min: 2, max: 40 }).chain((n) =>
    fc.tuple(fc.constant(n), fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.double({ min: 0, max: 1, noNaN: true })), { minLength: 2 * n, maxLength: 2 * n })),
  );
  function estimate(n: number, docs: readonly [number, number][], copies: number) {
    const m = 2 * n * copies;
    const stratumOf = Uint8Array.from({ length: m }, (_, d) => (d % (2 * n) < n ? 0 : 1));
    const design: StratifiedDesign = { stratumOf, population: Float64Array.of(1000 * copies, 100 * copies), drawn: Float64Array.of(n * copies, n * copies) };
    const x = Float64Array.from({ length: m }, (_, d) => docs[d % (2 * n)][0]);
    const y = Float64Array.from({ length: m }, (_, d) => Math.round(docs[d % (2 * n)][1] * x[d]));
    let pairs = 0;
    for (const v of x) pairs += v;
    return stratifiedRatio(design, Uint32Array.from({ length: m }, (_, d) => d), y, x, pairs);
  }

  it("contains the estimate, stays in [0, 1], narrows as the sample grows and is exact where all or none is found", () => {
    fc.assert(
      fc.property(sample, ([n, docs]) => {
        const one = estimate(n, docs, 1);
        if (docs.every(([x]) => x === 0)) {
          expect(one).toMatchObject({ estimate: NaN, low: 0, high: 1, trials: 0 });
          return;
        }
        expect(0 <= one.low && one.low <= one.estimate && one.estimate <= one.high && one.high <= 1).toBe(true);
        // The same documents four times over: the same estimate, a narrower interval.
        const four = estimate(n, docs, 4);
        expect(four.estimate).toBeCloseTo(one.estimate, 12);
        expect(four.high - four.low).toBeLessThanOrEqual(one.high - one.low + 1e-12);
        if (one.estimate === 1) expect(one.high).toBe(1);
        if (one.estimate === 0) expect(one.low).toBe(0);
        expect(one.trials).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});
