import { describe, expect, it } from "vitest";
import { calibrationRows, calibrationTsv, recommendedThreshold } from "../../src/eval/calibration.js";

describe("calibrationRows", () => {
  // Documents 0..5; 0 and 3 sampled. Clusters: {0, 1, 2} and {3, 4}; 5 alone.
  const clusterOf = Uint32Array.from([1, 1, 1, 2, 2, 0]);
  const sampled = Uint8Array.from([1, 0, 0, 1, 0, 0]);
  // Exact similarities of the pairs with a sampled document (≥ 0.5).
  const reference = {
    a: Uint32Array.from([0, 0, 0, 3, 3]),
    b: Uint32Array.from([1, 2, 5, 4, 5]),
    similarity: Float64Array.from([0.97, 0.6, 0.92, 0.8, 0.55]),
  };

  it("counts reference pairs in one cluster (recall) and in-cluster pairs that are similar (precision)", () => {
    const rows = calibrationRows(reference, clusterOf, sampled, [0.5, 0.9, 0.95, 1]);
    // Pairs in one cluster with a sampled document: (0,1), (0,2), (3,4) = 3.
    expect(rows.map((r) => [r.recall.estimate, r.precision.estimate])).toEqual([
      [3 / 5, 3 / 3],
      [1 / 2, 1 / 3],
      [1 / 1, 1 / 3],
      [NaN, 0],
    ]);
    expect(recommendedThreshold(rows, 0.2)).toBe(0.5);
    expect(recommendedThreshold(rows, 0.99)).toBeUndefined();
  });

  it("writes the columns report.html reads, empty where nothing is known", () => {
    const text = calibrationTsv(calibrationRows(reference, clusterOf, sampled, [0.9, 1]));
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toBe("threshold\trecall\trecall_low\trecall_high\tprecision\tprecision_low\tprecision_high\trecall_trials\tprecision_trials");
    expect(lines[1].split("\t").slice(0, 2)).toEqual(["0.90", "0.5000"]);
    // Uniform: the Wilson intervals' trials are the pairs counted (2 reference pairs at ≥ 0.9, 3 in-cluster pairs).
    expect(lines[1].split("\t").slice(7)).toEqual(["2.0", "3.0"]);
    expect(lines[2].split("\t")).toEqual(["1.00", "", "0.0000", "1.0000", "0.0000", "0.0000", expect.any(String), "", "3.0"]);
  });
});
