import fc from "fast-check";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BitPermutation } from "../../src/pleb/permutation.js";
import { sortKeys } from "../../src/pleb/sort-keys.js";
import { mergeStoredKeys, oldInCombined, readSortedKeys, writeSortedKeys } from "../../src/pleb/stored-keys.js";
import { sortOrder } from "../../src/util/radix-order.js";
import { removeTempDirs, tempDir } from "../helpers/cli.js";

afterAll(removeTempDirs);

const W = 4;

/** The keys (hi, lo) of signatures `rows` of `store` under `perm`, indexed 0 … rows.length − 1. */
function keysOf(store: Uint32Array, rows: readonly number[], perm: BitPermutation): { hi: Uint32Array; lo: Uint32Array } {
  const compact = new Uint32Array(rows.length * W);
  rows.forEach((r, k) => compact.set(store.subarray(r * W, (r + 1) * W), k * W));
  const hi = new Uint32Array(rows.length);
  const lo = new Uint32Array(rows.length);
  sortKeys(compact, W, perm, 0, rows.length, hi, lo);
  return { hi, lo };
}

/**
 * A combined store: each signature of few set bits (so that keys tie on hi, and on hi and lo),
 * each of the index only, new only, or both (an index signature a new document shares).
 */
const combined = fc
  .integer({ min: 1, max: 60 })
  .chain((n) =>
    fc.record({
      words: fc.array(fc.constantFrom(0, 1, 1 << 7, 1 << 31, 0x80000001), { minLength: n * W, maxLength: n * W }),
      roles: fc.array(fc.constantFrom("old", "new", "both"), { minLength: n, maxLength: n }),
      seed: fc.nat({ max: 1000 }),
      shiftCount: fc.nat({ max: 300 }),
      iteration: fc.nat({ max: 5 }),
    }),
  );

describe("stored sorted keys (--against-scan new over an index that kept them, property)", () => {
  it("merging the new signatures' keys into the index's stored ones gives sortOrder of all keys, ties by combined index", async () => {
    const dir = tempDir();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(combined, async ({ words, roles, seed, shiftCount, iteration }) => {
        const store = Uint32Array.from(words);
        const n = roles.length;
        const perm = BitPermutation.atIteration(W * 32, seed, shiftCount, iteration);
        const all = Array.from({ length: n }, (_, i) => i);
        const oldRows = all.filter((i) => roles[i] !== "new");
        const freshRows = all.filter((i) => roles[i] !== "old");
        // The index's run: its own store (the old signatures in combined order), sorted and written.
        const oldKeys = keysOf(store, oldRows, perm);
        const oldOrder = sortOrder(oldKeys.hi, oldKeys.lo, oldRows.length);
        const path = join(dir, `${run++}.u32`);
        await writeSortedKeys(path, { hi: oldKeys.hi.map((_, k) => oldKeys.hi[oldOrder[k]]), order: oldOrder });
        const own = keysOf(store, freshRows, perm);
        const fresh = Uint8Array.from(roles, (r) => (r === "old" ? 0 : 1));
        const order = new Uint32Array(n);
        const hi = new Uint32Array(n);
        const merge = { store, words: W, perm, old: readSortedKeys(path, oldRows.length), toCombined: oldInCombined(Uint32Array.from(oldRows), fresh) };
        mergeStoredKeys({ ...merge, freshIndex: Uint32Array.from(freshRows), freshHi: own.hi, freshLo: own.lo, freshOrder: sortOrder(own.hi, own.lo, freshRows.length) }, order, hi);
        const every = keysOf(store, all, perm);
        const expected = sortOrder(every.hi, every.lo, n);
        expect(order).toEqual(expected);
        expect(hi).toEqual(expected.map((i) => every.hi[i]));
      }),
      { numRuns: 300 },
    );
  });

  it("refuses stored keys of another number of signatures, naming the file", async () => {
    const path = join(tempDir(), "0001.u32");
    await writeSortedKeys(path, { hi: Uint32Array.of(1, 2, 3), order: Uint32Array.of(2, 0, 1) });
    expect(readSortedKeys(path, 3).order).toEqual(Uint32Array.of(2, 0, 1));
    expect(() => readSortedKeys(path, 4)).toThrow(`${path}: 24 bytes of sorted keys, but the index's store holds 4 signatures (32 bytes expected)`);
  });
});
