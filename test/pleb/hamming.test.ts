import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Sfc32 } from "../../src/sketch/random-vectors.js";
import { hammingDistance, hammingWithin, maxDistanceFor, popcount2, popcount32 } from "../../src/pleb/hamming.js";
import { flipBits, naiveDistance, randomStore } from "./helpers.js";

describe("popcount32", () => {
  it("counts bits", () => {
    expect(popcount32(0)).toBe(0);
    expect(popcount32(0xffffffff)).toBe(32);
    expect(popcount32(-1)).toBe(32);
    expect(popcount32(0x80000001)).toBe(2);
    const r = new Sfc32(1, 1);
    for (let k = 0; k < 1000; k++) {
      const x = r.nextUint32();
      expect(popcount32(x)).toBe(x.toString(2).split("").filter((c) => c === "1").length);
    }
  });

  it("popcount2 is the two words' counts added (property)", () => {
    const ones = (x: number) => (x >>> 0).toString(2).split("").filter((c) => c === "1").length;
    const word = fc.oneof(fc.constantFrom(0, 1, 0x80000000, 0xffffffff, -1), fc.nat({ max: 0xffffffff }));
    fc.assert(
      fc.property(word, word, (x, y) => {
        expect(popcount2(x, y)).toBe(ones(x) + ones(y));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("hammingDistance / hammingWithin", () => {
  it("match the naive distance, with early exit beyond maxDistance", () => {
    const W = 8; // 256 bits
    const n = 40;
    const store = randomStore(n, W, 3);
    const r = new Sfc32(3, 1);
    // Make half the signatures near copies of their predecessor at varied distances.
    for (let i = 1; i < n; i += 2) {
      store.copyWithin(i * W, (i - 1) * W, i * W);
      flipBits(store, W, i, i % 40, r);
    }
    // Collect disagreements and assert once: per-call expects would dominate the run time.
    const bad: string[] = [];
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const d = naiveDistance(store, W, i, j);
        if (hammingDistance(store, i, j, W) !== d) bad.push(`distance ${i},${j}`);
        for (const max of [0, 5, 19, 20, 38, 128, 256]) {
          const got = hammingWithin(store, i, j, W, max);
          const ok = d <= max ? got === d : got > max && got <= d;
          if (!ok) bad.push(`within ${i},${j},${max}: ${got} vs ${d}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });
});

describe("maxDistanceFor", () => {
  it("is the largest d with 1 − d/bits ≥ threshold", () => {
    expect(maxDistanceFor(1024, 0.9)).toBe(102);
    expect(maxDistanceFor(1024, 0.95)).toBe(51);
    expect(maxDistanceFor(1000, 0.95)).toBe(50);
    expect(maxDistanceFor(1000, 0.9)).toBe(100);
    expect(maxDistanceFor(100, 0.7)).toBe(30);
    expect(maxDistanceFor(1024, 1)).toBe(0);
    expect(maxDistanceFor(1024, 0)).toBe(1024);
    for (const bits of [64, 128, 512, 1000, 1024, 2048]) {
      for (let pct = 50; pct <= 100; pct++) {
        const t = pct / 100;
        const d = maxDistanceFor(bits, t);
        // Exact rational check: (bits − d)·100 ≥ pct·bits and one more would fail.
        expect((bits - d) * 100).toBeGreaterThanOrEqual(pct * bits);
        if (d < bits) expect((bits - d - 1) * 100).toBeLessThan(pct * bits);
      }
    }
    expect(() => maxDistanceFor(1024, 1.5)).toThrow(RangeError);
    expect(() => maxDistanceFor(1024, Number.NaN)).toThrow(RangeError);
  });
});
