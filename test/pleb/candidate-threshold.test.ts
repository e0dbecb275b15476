import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { candidateThreshold } from "../../src/pleb/candidate-threshold.js";
import { maxDistanceFor } from "../../src/pleb/hamming.js";

/** P(distance > D) for distance ~ binomial(bits, q), each term from ln n! (summed logs). */
function tailAbove(bits: number, q: number, D: number): number {
  const logFactorial = new Float64Array(bits + 1);
  for (let i = 2; i <= bits; i++) logFactorial[i] = logFactorial[i - 1] + Math.log(i);
  let s = 0;
  for (let d = D + 1; d <= bits; d++) s += Math.exp(logFactorial[bits] - logFactorial[d] - logFactorial[bits - d] + d * Math.log(q) + (bits - d) * Math.log1p(-q));
  return s;
}

describe("candidateThreshold: PLEB's Hamming threshold for a cosine threshold", () => {
  it("loses at most 1 % of the pairs at exactly the cosine threshold, and is the tightest such threshold", () => {
    for (const bits of [64, 256, 1024, 4096]) {
      for (const c of [0.5, 0.8, 0.9, 0.95, 0.99]) {
        const D = maxDistanceFor(bits, candidateThreshold(c, bits));
        const q = Math.acos(c) / Math.PI;
        expect(tailAbove(bits, q, D)).toBeLessThanOrEqual(0.01);
        expect(tailAbove(bits, q, D - 1)).toBeGreaterThan(0.01);
      }
    }
  });

  it("is a whole number of bits below 1 (maxDistanceFor gives back the distance)", () => {
    fc.assert(
      fc.property(fc.double({ min: 0.05, max: 1, noNaN: true }), fc.constantFrom(64, 128, 1024, 65536), (c, bits) => {
        const t = candidateThreshold(c, bits);
        const D = maxDistanceFor(bits, t);
        expect(t).toBe(1 - D / bits);
      }),
    );
  });

  it("grows with the cosine threshold and lies below the expected similarity 1 − arccos(c)/π", () => {
    fc.assert(
      fc.property(fc.double({ min: 0.05, max: 0.999, noNaN: true }), fc.double({ min: 0.05, max: 0.999, noNaN: true }), (a, b) => {
        const [lo, hi] = a < b ? [a, b] : [b, a];
        expect(candidateThreshold(lo, 1024)).toBeLessThanOrEqual(candidateThreshold(hi, 1024));
        expect(candidateThreshold(hi, 1024)).toBeLessThan(1 - Math.acos(hi) / Math.PI);
      }),
    );
  });

  it("matches the README's worked example and the edge cases", () => {
    // 1024 bits, cosine 0.9: mean distance 147.0, spread 11.2, D = 174.
    expect(candidateThreshold(0.9, 1024)).toBe(1 - 174 / 1024);
    // The default --cosine-threshold 0.95: D = 127 (--no-verify's default 0.9 is D = 102).
    expect(maxDistanceFor(1024, candidateThreshold(0.95, 1024))).toBe(127);
    expect(candidateThreshold(1, 1024)).toBe(1);
    expect(() => candidateThreshold(0, 1024)).toThrow(RangeError);
    expect(() => candidateThreshold(1.5, 1024)).toThrow(RangeError);
  });
});
