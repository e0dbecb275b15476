import { describe, expect, it } from "vitest";
import { findRepeats } from "../../src/paragraph-dedup/repeats.js";
import { rng } from "./random-corpus.js";

describe("findRepeats", () => {
  it("returns the end of every occurrence of a key seen before, also when the table outgrows its first size", () => {
    const r = rng(3);
    // Parts of two chunks, the second chunk's in two pieces; keys drawn from a small range.
    const part = (chunk: number, n: number) => {
      const occ = new Uint32Array(3 * n);
      for (let i = 0; i < n; i++) {
        occ[3 * i] = Math.floor(r() * 300);
        occ[3 * i + 1] = i % 7 === 0 ? 0 : 5;
        occ[3 * i + 2] = Math.floor(i / 10);
      }
      return { chunk, data: occ };
    };
    const parts = [part(0, 500), part(1, 400), part(1, 300)];
    const expected = new Map<string, number>();
    const seen = new Set<string>();
    for (const { chunk, data } of parts) {
      for (let i = 0; i < data.length; i += 3) {
        const key = `${data[i]},${data[i + 1]}`;
        if (seen.has(key)) expected.set(`${chunk}:${data[i + 2]}`, (expected.get(`${chunk}:${data[i + 2]}`) ?? 0) + 1);
        seen.add(key);
      }
    }
    // Sized for 1 key: the table grows many times.
    for (const sizedFor of [1, 2000]) {
      const got = new Map<string, number>();
      const records = findRepeats(parts, sizedFor);
      for (let at = 0; at < records.length; at += 2 + records[at + 1]) {
        const chunk = records[at];
        for (let i = at + 2; i < at + 2 + records[at + 1]; i++) got.set(`${chunk}:${records[i]}`, (got.get(`${chunk}:${records[i]}`) ?? 0) + 1);
      }
      expect(got).toEqual(expected);
    }
  });
});
