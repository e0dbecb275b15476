import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { integerOrder, sortOrder, wordOrder } from "../../src/util/radix-order.js";

/** Indices sorted by `compare` with Array.prototype.sort, which is stable: equal keys keep index order. */
function stableOrder(n: number, compare: (a: number, b: number) => number): number[] {
  return Array.from({ length: n }, (_, i) => i).sort(compare);
}

// Keys drawn from a few values as often as from the whole range, so that ties, shared digits
// (each pass skipped when all keys share its digit) and the extremes all occur.
const word = fc.oneof(fc.constantFrom(0, 1, 0x7ff, 0x800, 0x3fffff, 0x400000, 0x7fffffff, 0x80000000, 0xffffffff), fc.nat({ max: 0xffffffff }));
const integer = fc.oneof(fc.constantFrom(0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, 7 * 2 ** 32 + 5), fc.maxSafeNat());

describe("radix orders equal a stable sort (property)", () => {
  it("sortOrder: (hi, lo, index) ascending, unsigned", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(word, word), { maxLength: 300 }), (keys) => {
        const n = keys.length;
        const hi = Uint32Array.from(keys, ([h]) => h);
        const lo = Uint32Array.from(keys, ([, l]) => l);
        expect(Array.from(sortOrder(hi, lo, n))).toEqual(stableOrder(n, (a, b) => hi[a] - hi[b] || lo[a] - lo[b]));
      }),
      { numRuns: 300 },
    );
  });

  it("sortOrder of a prefix: only the first n keys are ordered", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(word, word), { maxLength: 100 }), fc.nat({ max: 100 }), (keys, cut) => {
        const n = Math.min(cut, keys.length);
        const hi = Uint32Array.from(keys, ([h]) => h);
        const lo = Uint32Array.from(keys, ([, l]) => l);
        expect(Array.from(sortOrder(hi, lo, n))).toEqual(stableOrder(n, (a, b) => hi[a] - hi[b] || lo[a] - lo[b]));
      }),
      { numRuns: 200 },
    );
  });

  it("wordOrder: (key, index) ascending", () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 300 }), (keys) => {
        const k = Uint32Array.from(keys);
        expect(Array.from(wordOrder(k, k.length))).toEqual(stableOrder(k.length, (a, b) => k[a] - k[b]));
      }),
      { numRuns: 300 },
    );
  });

  it("integerOrder: (value, index) ascending for integers in [0, 2^53)", () => {
    fc.assert(
      fc.property(fc.array(integer, { maxLength: 300 }), (values) => {
        const v = Float64Array.from(values);
        expect(Array.from(integerOrder(v, v.length))).toEqual(stableOrder(v.length, (a, b) => v[a] - v[b]));
      }),
      { numRuns: 300 },
    );
  });
});
