import { describe, expect, it } from "vitest";
import { BitPermutation } from "../../src/pleb/permutation.js";

function isBijection(p: Uint16Array): boolean {
  const seen = new Uint8Array(p.length);
  for (const x of p) {
    if (x >= p.length || seen[x]) return false;
    seen[x] = 1;
  }
  return true;
}

describe("BitPermutation", () => {
  it("starts as the identity and stays a bijection", () => {
    const perm = new BitPermutation(1024, 7);
    expect(Array.from(perm.positions)).toEqual(Array.from({ length: 1024 }, (_, k) => k));
    for (let it = 0; it < 50; it++) {
      perm.shift(70);
      expect(isBijection(perm.positions)).toBe(true);
    }
    expect(perm.transpositions).toBe(3500);
    const moved = perm.positions.filter((x, k) => x !== k).length;
    // 3500 random transpositions of 1024 positions: P(position untouched) = (1 − 2/1024)^3500
    // ≈ 0.033, so most positions moved.
    expect(moved).toBeGreaterThan(900);
  });

  it("applies transpositions of two distinct positions", () => {
    const perm = new BitPermutation(64, 1);
    for (let k = 0; k < 200; k++) {
      const before = perm.positions.slice();
      perm.shift(1);
      const changed = perm.positions.filter((x, i) => x !== before[i]).length;
      expect(changed).toBe(2);
    }
    const two = new BitPermutation(2, 5);
    two.shift(1);
    expect(Array.from(two.positions)).toEqual([1, 0]);
  });

  it("is reproducible by replay, whatever the shift batching", () => {
    const a = new BitPermutation(512, 99);
    for (let it = 0; it < 30; it++) a.shift(40);
    const b = BitPermutation.atIteration(512, 99, 40, 30);
    expect(b.positions).toEqual(a.positions);
    const c = new BitPermutation(512, 99);
    c.shift(1);
    c.shift(1199);
    expect(c.positions).toEqual(a.positions);
    // A replayed permutation continues like the original.
    a.shift(40);
    b.shift(40);
    expect(b.positions).toEqual(a.positions);
    expect(BitPermutation.atIteration(512, 100, 40, 30).positions).not.toEqual(a.positions);
    expect(() => new BitPermutation(1, 0)).toThrow(RangeError);
    expect(() => a.shift(-1)).toThrow(RangeError);
  });
});
