import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cosineBlock } from "../../src/eval/exact/cosine-block.js";
import { invertRows, rowCosine, unitRows } from "../../src/features/sparse-rows.js";
import { meetsThreshold, SIMILARITY_TOLERANCE, unitCosine } from "../../src/util/similarity-threshold.js";

/** Rows 0 and 1 are the same random vector (normalised by unitRows), row 2 another one. */
function identicalRows(weights: number[], other: number[]) {
  const n = weights.length;
  const cols = Uint32Array.from([...weights.keys(), ...weights.keys(), ...other.keys()]);
  const vals = Float64Array.from([...weights, ...weights, ...other]);
  const rowPtr = Uint32Array.from([0, n, 2 * n, 2 * n + other.length]);
  return unitRows(Uint32Array.from([0, 1, 2]), rowPtr, cols, vals, Math.max(n, other.length));
}

const weight = fc.double({ min: 1e-3, max: 1e3, noNaN: true });

describe("similarity thresholds", () => {
  it("gives identical random vectors a cosine of exactly 1 in the block kernel and the verifier's row cosine", () => {
    fc.assert(
      fc.property(fc.array(weight, { minLength: 1, maxLength: 300 }), fc.array(weight, { minLength: 1, maxLength: 20 }), (w, other) => {
        const rows = identicalRows(w, other);
        const block = cosineBlock({ rows, postings: invertRows(rows), queries: Uint32Array.from([0, 1, 2]), threshold: 1, sampled: null });
        const at = Array.from(block.a, (a, k) => `${a}-${block.b[k]}`).indexOf("0-1");
        expect(at).toBeGreaterThanOrEqual(0);
        expect(block.similarity[at]).toBe(1);
        // The sampled path of the kernel (row 0 sampled, its partners after it).
        const sampled = cosineBlock({ rows, postings: invertRows(rows), queries: Uint32Array.from([0]), threshold: 1, sampled: Uint8Array.from([1, 0, 0]) });
        expect(Array.from(sampled.similarity)).toContain(1);
        expect(rowCosine(rows, 0, 1, new Float64Array(rows.columns))).toBe(1);
        expect(rowCosine(rows, 1, 0, new Float64Array(rows.columns))).toBe(1);
      }),
    );
  });

  it("meets a threshold up to the rounding tolerance, and never reports a cosine above 1", () => {
    expect(unitCosine(0.9999999999999998)).toBe(1);
    expect(unitCosine(1.0000000000000002)).toBe(1);
    expect(unitCosine(0.999)).toBe(0.999);
    expect(meetsThreshold(0.9999999999999998, 1)).toBe(true);
    expect(meetsThreshold(0.7 - 1e-16, 0.7)).toBe(true);
    expect(meetsThreshold(0.7 - 2 * SIMILARITY_TOLERANCE, 0.7)).toBe(false);
  });
});
