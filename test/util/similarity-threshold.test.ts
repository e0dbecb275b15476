import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cosineBlock } from "../../src/eval/exact/cosine-block.js";
import { CountRows } from "../../src/features/count-rows.js";
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

/** count-rows.ts's entry encoding: varint(2·rank + (tf > 1)), then varint(tf − 2) when tf > 1. */
function encodeRow(tfs: number[]): number[] {
  const out: number[] = [];
  const varint = (v: number) => {
    for (; v >= 0x80; v = Math.floor(v / 0x80)) out.push((v & 0x7f) | 0x80);
    out.push(v);
  };
  tfs.forEach((tf, rank) => {
    varint(2 * rank + (tf > 1 ? 1 : 0));
    if (tf > 1) varint(tf - 2);
  });
  return out;
}

/** The verifier's rows (--verify): two identical count rows under random weight factors. */
function identicalCountRows(tfs: number[], factors: number[]): CountRows {
  let sq = 0;
  tfs.forEach((tf, k) => (sq += (tf * factors[k]) ** 2));
  const row = encodeRow(tfs);
  const bytes = Uint8Array.from([...row, ...row]);
  const part = { ordinals: Uint32Array.from([0, 1]), norms: Float64Array.from([Math.sqrt(sq), Math.sqrt(sq)]), lengths: Uint32Array.from([tfs.length, tfs.length]), ends: Uint32Array.from([row.length, 2 * row.length]), bytes };
  return new CountRows([part], Float64Array.from(factors));
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

  it("gives identical random count rows a cosine of exactly 1 in the verifier (--verify)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 500 }), fc.double({ min: 0.01, max: 20, noNaN: true })), { minLength: 1, maxLength: 300 }),
        (entries) => {
          const rows = identicalCountRows(entries.map(([tf]) => tf), entries.map(([, f]) => f));
          const scratch = new Float64Array(entries.length);
          expect(rows.cosine(0, 1, scratch)).toBe(1);
          expect(rows.cosine(1, 0, scratch)).toBe(1);
        },
      ),
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
