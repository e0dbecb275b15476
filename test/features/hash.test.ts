import { describe, expect, it } from "vitest";
import { hashSequence, hashString, mix53to32 } from "../../src/features/hash.js";
import { rng } from "../helpers/vert.js";

const TWO_53 = 2 ** 53;

describe("hashString", () => {
  it("is deterministic and a non-negative safe integer below 2^53", () => {
    for (const s of ["", "a", "praha", "žluťoučký kůň", "😀", "x".repeat(1000)]) {
      const h = hashString(s);
      expect(hashString(s)).toBe(h);
      expect(Number.isSafeInteger(h)).toBe(true);
      expect(h).toBeGreaterThanOrEqual(0);
      expect(h).toBeLessThan(TWO_53);
    }
  });

  it("has fixed values (terms must agree across runs, threads and machines)", () => {
    // Pinned so that a change of the hash function (which would silently invalidate stored
    // term tables) is noticed.
    const pinned = ["", "a", "praha", "Praha", "žluťoučký"].map(hashString);
    expect(pinned).toEqual(PINNED);
  });

  it("has no collisions among 200k distinct strings of several shapes", () => {
    const r = rng(123);
    const strings = new Set<string>();
    for (let i = 0; i < 60_000; i++) strings.add(`w${i}`);
    for (let i = 0; i < 40_000; i++) strings.add(String(i));
    // Short strings over a small alphabet (many near-identical inputs).
    const alpha = "abcdefghijklmnopqrstuvwxyzěščřžýáíé";
    for (let len = 1; strings.size < 150_000; len++) {
      for (let i = 0; i < 20_000 && strings.size < 150_000; i++) {
        let s = "";
        for (let j = 0; j < len; j++) s += alpha[Math.floor(r() * alpha.length)];
        strings.add(s);
      }
    }
    // Strings that differ only by order or by a swapped pair of characters.
    for (let i = 0; strings.size < 200_000; i++) {
      const base = `token${i}`;
      strings.add(base.split("").reverse().join(""));
      strings.add(`${base}\u0000`);
      strings.add(`ab${i}ba`);
    }
    const hashes = new Set<number>();
    for (const s of strings) hashes.add(hashString(s));
    expect(strings.size).toBeGreaterThanOrEqual(200_000);
    expect(hashes.size).toBe(strings.size);
  });

  it("distinguishes strings that differ only in case, length or a trailing NUL", () => {
    const group = ["a", "A", "aa", "a\u0000", "\u0000a", "", "\u0000"];
    expect(new Set(group.map(hashString)).size).toBe(group.length);
  });

  it("spreads its bits (each of the 53 bits is set in 40-60% of 4000 hashes)", () => {
    const ones = new Array<number>(53).fill(0);
    const n = 4000;
    for (let i = 0; i < n; i++) {
      let h = hashString(`s${i}`);
      for (let b = 0; b < 53; b++) {
        ones[b] += h % 2;
        h = Math.floor(h / 2);
      }
    }
    for (const c of ones) {
      expect(c / n).toBeGreaterThan(0.4);
      expect(c / n).toBeLessThan(0.6);
    }
  });
});

describe("hashSequence", () => {
  const h = ["a", "b", "c", "d"].map(hashString);

  it("is deterministic, a safe integer, and depends only on the window", () => {
    const v = hashSequence(h, 1, 2);
    expect(hashSequence(h, 1, 2)).toBe(v);
    expect(hashSequence([h[1], h[2]], 0, 2)).toBe(v);
    expect(hashSequence(Float64Array.from(h), 1, 2)).toBe(v);
    expect(Number.isSafeInteger(v)).toBe(true);
    expect(v).toBeGreaterThanOrEqual(0);
    expect(v).toBeLessThan(TWO_53);
  });

  it("is order-sensitive", () => {
    expect(hashSequence([h[0], h[1]], 0, 2)).not.toBe(hashSequence([h[1], h[0]], 0, 2));
    const perms = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ].map((p) => hashSequence(p.map((i) => h[i]), 0, 3));
    expect(new Set(perms).size).toBe(6);
  });

  it("depends on the length and on repeated values", () => {
    const a = h[0];
    const all = [
      hashSequence([a], 0, 1),
      hashSequence([a, a], 0, 2),
      hashSequence([a, a, a], 0, 3),
      hashSequence([], 0, 0),
      hashSequence([a, 0], 0, 2),
      hashSequence([0, a], 0, 2),
    ];
    expect(new Set(all).size).toBe(all.length);
  });

  it("uses the high bits of 53-bit values", () => {
    const x = 2 ** 40 + 5;
    expect(hashSequence([x, 1], 0, 2)).not.toBe(hashSequence([5, 1], 0, 2));
    expect(hashSequence([2 ** 52, 1], 0, 2)).not.toBe(hashSequence([0, 1], 0, 2));
  });

  it("has no collisions among 200k distinct 3-shingles over a small vocabulary", () => {
    const vocab = Array.from({ length: 60 }, (_, i) => hashString(`v${i}`));
    const seen = new Set<number>();
    const triple = [0, 0, 0];
    let n = 0;
    for (let i = 0; i < 60; i++)
      for (let j = 0; j < 60; j++)
        for (let k = 0; k < 60 && n < 200_000; k++, n++) {
          triple[0] = vocab[i];
          triple[1] = vocab[j];
          triple[2] = vocab[k];
          seen.add(hashSequence(triple, 0, 3));
        }
    expect(n).toBe(200_000);
    expect(seen.size).toBe(n);
  });
});

describe("mix53to32", () => {
  it("is deterministic, 32-bit unsigned, and depends on value and salt", () => {
    const v = hashString("term");
    const m = mix53to32(v, 1);
    expect(mix53to32(v, 1)).toBe(m);
    expect(Number.isInteger(m) && m >= 0 && m < 2 ** 32).toBe(true);
    expect(mix53to32(v, 2)).not.toBe(m);
    expect(mix53to32(v + 2 ** 33, 1)).not.toBe(m);
  });
});

const PINNED = [1970844187673128, 6543421628656117, 8919832326028670, 3617022519915140, 137589592150387];
