import { describe, expect, it } from "vitest";
import { findRepeats, KeySet } from "../../src/paragraph-dedup/repeats.js";
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

describe("KeySet.sorted", () => {
  it("gives every key once, sorted by (hi, lo) unsigned, however the high lanes are spread", () => {
    const r = rng(5);
    const word = () => Math.floor(r() * 0x1_0000_0000) >>> 0;
    const cases: [string, () => [number, number]][] = [
      // A bucket's keys: uniform high lanes under one 8-bit prefix.
      ["uniform", () => [word(), ((0xa7 << 24) | (word() >>> 8)) >>> 0]],
      // Few high lanes, many keys each: bins beyond the insertion sort's size.
      ["clustered", () => [word(), 0x80000000 + Math.floor(r() * 5)]],
      // Low lanes equal, high lanes differing in their lowest bits only.
      ["low bits", () => [7, 0xfffffff0 + Math.floor(r() * 16)]],
    ];
    for (const [name, draw] of cases) {
      for (const n of [0, 1, 3, 5000]) {
        const keys = new KeySet(4);
        const want = new Map<string, [number, number]>();
        // The zero key, kept outside the table, among them.
        if (n === 5000) {
          keys.seen(0, 0);
          want.set("0,0", [0, 0]);
        }
        for (let i = 0; i < n; i++) {
          const [lo, hi] = draw();
          keys.seen(lo, hi);
          want.set(`${lo},${hi}`, [lo, hi]);
        }
        const sorted = [...want.values()].sort((a, b) => a[1] - b[1] || a[0] - b[0]).flat();
        expect([...keys.sorted()], `${name}, ${n} keys`).toEqual(sorted);
      }
    }
  });
});
