import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wilsonInterval } from "../../src/eval/binomial-interval.js";

/** Probability that the interval of k ~ Binomial(n, p) contains p, summed exactly over k. */
function coverage(p: number, n: number): number {
  const logFactorial = [0];
  for (let i = 1; i <= n; i++) logFactorial.push(logFactorial[i - 1] + Math.log(i));
  let covered = 0;
  for (let k = 0; k <= n; k++) {
    const probability = Math.exp(logFactorial[n] - logFactorial[k] - logFactorial[n - k] + k * Math.log(p) + (n - k) * Math.log(1 - p));
    const { low, high } = wilsonInterval(k, n);
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
