import { describe, expect, it } from "vitest";
import { hashSequence, hashString } from "../../src/features/hash.js";
import { bandsForThreshold, candidateProbability, resolveBands } from "../../src/methods/lsh-bands.js";
import { sortedJaccard, sortedSet } from "../../src/methods/jaccard.js";
import { bandKeys, minhashSignature, Permutations, shingleSet } from "../../src/methods/minhash.js";
import { VertdupError } from "../../src/util/errors.js";

const NORM = { lowercase: true, keepNumbers: false };

describe("shingle sets", () => {
  it("are the distinct sorted k-word shingle hashes; short documents are one shingle", () => {
    const h = ["a", "b", "c", "a", "b", "c"].map(hashString);
    expect(Array.from(shingleSet(["A", "b", ",", "c", "a", "b", "c"], 3, NORM))).toEqual(
      Array.from(sortedSet([0, 1, 2, 3].map((i) => hashSequence(h, i, 3)))).slice(0, 3),
    );
    expect(Array.from(shingleSet(["a", "b"], 3, NORM))).toEqual([hashSequence(h, 0, 2)]);
    expect(shingleSet([",", "7"], 3, NORM).length).toBe(0);
  });

  it("sortedJaccard is |A∩B| / |A∪B|", () => {
    const a = Float64Array.of(1, 2, 3, 4);
    const b = Float64Array.of(3, 4, 5);
    expect(sortedJaccard(a, 0, 4, b, 0, 3)).toBe(2 / 5);
    expect(sortedJaccard(a, 0, 0, b, 0, 0)).toBe(0);
  });
});

describe("MinHash signatures", () => {
  it("agree on a share of positions close to the Jaccard resemblance", () => {
    const perms = new Permutations(512, 3);
    const base = Array.from({ length: 400 }, (_, i) => hashString(`t${i}`));
    for (const keep of [100, 250, 380]) {
      const a = sortedSet(base);
      const b = sortedSet([...base.slice(0, keep), ...Array.from({ length: 400 - keep }, (_, i) => hashString(`u${i}`))]);
      const sa = new Int32Array(512);
      const sb = new Int32Array(512);
      minhashSignature(a, perms, sa);
      minhashSignature(b, perms, sb);
      const agree = sa.filter((v, i) => v === sb[i]).length / 512;
      expect(Math.abs(agree - sortedJaccard(a, 0, a.length, b, 0, b.length))).toBeLessThan(0.07);
    }
  });

  it("band keys are equal exactly where the bands are (up to 32-bit collisions)", () => {
    const s = Int32Array.from({ length: 12 }, (_, i) => i * 7919);
    const t = s.slice();
    t[5] = 1;
    const ks = new Uint32Array(4);
    const kt = new Uint32Array(4);
    bandKeys(s, 4, 3, ks, 0);
    bandKeys(t, 4, 3, kt, 0);
    expect([0, 1, 2, 3].map((b) => ks[b] === kt[b])).toEqual([true, false, true, true]);
  });
});

describe("LSH bands", () => {
  it("derived from the threshold catch pairs at the threshold with high probability", () => {
    for (const t of [0.45, 0.8, 0.9]) {
      const { bands, rows } = bandsForThreshold(t, 128);
      expect(bands * rows).toBeLessThanOrEqual(128);
      expect(candidateProbability(t, bands, rows)).toBeGreaterThan(0.75);
      expect(candidateProbability(Math.min(1, t + 0.05), bands, rows)).toBeGreaterThan(0.9);
    }
  });

  it("given explicitly are checked against --num-perm", () => {
    expect(resolveBands(0.8, 128, 16, 8)).toEqual({ bands: 16, rows: 8 });
    expect(resolveBands(0.8, 128, 32)).toEqual({ bands: 32, rows: 4 });
    expect(() => resolveBands(0.8, 128, 20, 8)).toThrow(VertdupError);
  });
});
