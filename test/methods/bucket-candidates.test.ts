import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ALL_PAIRS_BUCKET, BucketCandidates, NEIGHBOURS } from "../../src/methods/sets/bucket-candidates.js";

const pairsOf = (flat: Uint32Array) => Array.from({ length: flat.length / 2 }, (_, k) => `${flat[2 * k]}:${flat[2 * k + 1]}`);

describe("BucketCandidates", () => {
  it("gives every pair of a small bucket, each pair once and sorted, whatever the buckets' order", () => {
    fc.assert(
      fc.property(fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 200 }), { minLength: 2, maxLength: ALL_PAIRS_BUCKET }), { maxLength: 8 }), (buckets) => {
        const expected = new Set<string>();
        const forward = new BucketCandidates();
        const backward = new BucketCandidates();
        const sorted = buckets.map((b) => Uint32Array.from(b.sort((x, y) => x - y)));
        for (const b of sorted) {
          forward.addBucket(b, 0, b.length);
          for (let p = 0; p < b.length; p++) for (let q = p + 1; q < b.length; q++) expected.add(`${b[p]}:${b[q]}`);
        }
        for (const b of [...sorted].reverse()) backward.addBucket(b, 0, b.length);
        const found = pairsOf(forward.sorted());
        expect(found).toEqual([...expected].sort((x, y) => Number(x.split(":")[0]) - Number(y.split(":")[0]) || Number(x.split(":")[1]) - Number(y.split(":")[1])));
        expect(pairsOf(backward.sorted())).toEqual(found);
      }),
      { numRuns: 100 },
    );
  });

  it("gives each member of a large bucket with the first member and its predecessors only", () => {
    const m = 100_000;
    const members = Uint32Array.from({ length: m + 2 }, (_, i) => i);
    const c = new BucketCandidates();
    c.addBucket(members, 1, m + 1);
    const found = c.sorted();
    expect(found.length / 2).toBe((m - 1) + (NEIGHBOURS * (m - 2) - (NEIGHBOURS * (NEIGHBOURS - 1)) / 2));
    const pairs = new Set(pairsOf(found));
    expect(pairs.has(`1:${m}`) && pairs.has(`${m - NEIGHBOURS}:${m}`) && !pairs.has(`${m - NEIGHBOURS - 1}:${m}`)).toBe(true);
    expect(pairs.has(`0:1`) || pairs.has(`${m}:${m + 1}`)).toBe(false);
  });
});

describe("BucketCandidates with partitions", () => {
  it("cuts a bucket into one per partition: no pair across partitions, each partition's members chained as a bucket of their own", () => {
    const members = Uint32Array.from([0, 1, 2, 3, 4, 5, 6, 7]);
    const part = Uint32Array.from([0, 1, 0, 1, 0, 1, 0, 1]);
    const split = new BucketCandidates(2, part);
    split.addBucket(members, 0, members.length);
    const alone = (p: number) => {
      const c = new BucketCandidates(2);
      c.addBucket(members.filter((d) => part[d] === p), 0, 4);
      return [...c.sorted()];
    };
    const pairs = (flat: number[]) => Array.from({ length: flat.length / 2 }, (_, k) => `${flat[2 * k]}-${flat[2 * k + 1]}`).sort();
    expect(pairs([...split.sorted()])).toEqual(pairs([...alone(0), ...alone(1)]));
  });
});
