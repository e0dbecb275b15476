import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sampleDocuments } from "../../src/eval/document-sample.js";

const count = (flags: Uint8Array) => flags.reduce((s, f) => s + f, 0);

describe("sampleDocuments", () => {
  it("draws exactly the asked number of documents, the same for the same seed", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 6000 }), fc.integer({ min: 0, max: 2 ** 40 }), (n, k, seed) => {
        const a = sampleDocuments(n, k, seed);
        expect(count(a)).toBe(Math.min(n, k));
        expect(sampleDocuments(n, k, seed)).toEqual(a);
      }),
      { numRuns: 30 },
    );
  });

  it("depends on the seed and is spread over the corpus", () => {
    const a = sampleDocuments(100_000, 1000, 1);
    expect(sampleDocuments(100_000, 1000, 2)).not.toEqual(a);
    // Each tenth of the corpus gets about a tenth of the sample (binomial sd ≈ 9.5).
    for (let part = 0; part < 10; part++) expect(Math.abs(count(a.subarray(part * 10_000, (part + 1) * 10_000)) - 100)).toBeLessThan(50);
  });
});
