import { afterAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import fc from "fast-check";
import { simhash384, simhashDistance, simhashGraph, simhashShard } from "../../src/methods/simhash384/simhash384.js";
import { SIMHASH_WORDS } from "../../src/core/method-options.js";
import { ALL_PAIRS_BUCKET } from "../../src/methods/sets/bucket-candidates.js";
import { VertdupError } from "../../src/core/errors.js";
import { concatU32 } from "../../src/util/typed-arrays.js";
import { cleanupVerts, writeVert } from "../helpers/vert.js";
import { bruteClusters, bruteLeaderClusters, firstOfByKey, bruteFirstOf, brutePairs, edgeStrings, graphClusters, headerCopiesCorpus, leaderSet, nearDuplicateCorpus, shardsOf } from "./features.js";

afterAll(cleanupVerts);
const NORM = { normalize: "nfc" as const, lowercase: true, keepNumbers: false };

describe("simhash384", () => {
  it("is the sign of the summed ±1 bits of the tokens' SHA-384", () => {
    const one = simhash384(["Praha"], NORM) as Uint32Array;
    const digest = createHash("sha384").update("praha").digest();
    expect(Array.from(one)).toEqual(Array.from({ length: 12 }, (_, w) => digest.readUInt32BE(4 * w)));
    // Two different tokens once each: every sum is 0 or ±2; 0 gives a clear bit.
    const two = simhash384(["a", "b"], NORM) as Uint32Array;
    const a = simhash384(["a"], NORM) as Uint32Array;
    const b = simhash384(["b"], NORM) as Uint32Array;
    for (let w = 0; w < 12; w++) expect(two[w] >>> 0).toBe((a[w] & b[w]) >>> 0);
    expect(simhash384([",", "42"], NORM)).toBeNull();
  });

  it("equals the ±1 sums of its definition (bit-sliced counters), for any multiset of tokens", () => {
    const reference = (tokens: string[]) => {
      const sums = new Int32Array(384);
      for (const t of tokens) {
        const d = createHash("sha384").update(t).digest();
        for (let i = 0; i < 384; i++) sums[i] += (d[i >> 3] >> (7 - (i & 7))) & 1 ? 1 : -1;
      }
      const out = new Uint32Array(12);
      for (let i = 0; i < 384; i++) if (sums[i] > 0) out[i >> 5] |= 1 << (31 - (i & 31));
      return Array.from(out);
    };
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f", "g"), { minLength: 1, maxLength: 300 }), (tokens) => {
        expect(Array.from(simhash384(tokens, NORM) as Uint32Array)).toEqual(reference(tokens));
      }),
      { numRuns: 300 },
    );
  });

  it("counts differing bits", () => {
    const words = new Uint32Array(24);
    words[12] = 0b1011;
    words[23] = 0x80000000;
    expect(simhashDistance(words, 0, 12)).toBe(4);
    expect(simhashDistance(words, 12, 12)).toBe(0);
  });
});

describe("simhashGraph equals brute force", () => {
  const check = async (text: string | string[], maxDistance: number) => {
    const paths = Array.isArray(text) ? text : [writeVert(text, "plain")];
    const shards = await shardsOf(paths, simhashShard);
    const n = shards.reduce((s, x) => s + x.ids.length, 0);
    const words = new Uint32Array(n * SIMHASH_WORDS);
    const empty = new Uint8Array(n);
    for (const s of shards) {
      words.set(s.simhashes, s.firstDoc * SIMHASH_WORDS);
      empty.set(s.empty, s.firstDoc);
    }
    const distance = (a: number, b: number) => simhashDistance(words, a * 12, b * 12);
    // Every pair of every bucket: the edges are all leader pairs within the distance.
    const { graph } = simhashGraph(shards, n, maxDistance, Infinity);
    expect(Array.from(graph.firstOf)).toEqual(bruteFirstOf(n, (d) => !empty[d], (a, b) => distance(a, b) === 0));
    const leaders = leaderSet(graph);
    const expected = brutePairs(n, distance, (d) => d <= maxDistance, (d) => leaders.has(d)).map((s) =>
      s.replace(/=(.*)$/, (_, d) => `=${(1 - Number(d) / 384).toFixed(6)}`),
    );
    expect(edgeStrings(graph)).toEqual(expected);
    // Buckets bounded down to 2 leaders still give the clusters of all document pairs.
    let similarPairs = 0;
    const truth = bruteClusters(n, (a, b) => !empty[a] && !empty[b] && distance(a, b) <= maxDistance && ++similarPairs > 0);
    for (const bound of [2, ALL_PAIRS_BUCKET]) expect(graphClusters(simhashGraph(shards, n, maxDistance, bound).graph)).toEqual(truth);
    return similarPairs;
  };

  it("on random near-duplicates, for several distances", async () => {
    const text = nearDuplicateCorpus(300, 7, 40);
    for (const d of [0, 5, 11]) expect(await check(text, d)).toBeGreaterThan(0);
  });

  it("on the real sample corpus", async () => {
    expect(await check(["data-samples/sample.vert.gz"], 5)).toBeGreaterThan(20);
  });

  it("refuses a distance the pigeonhole cannot guarantee", () => {
    expect(() => simhashGraph([], 0, 12)).toThrow(VertdupError);
  });

  it("joins 10,000 near copies differing in a header paragraph with O(copies) candidates, as brute force does", async () => {
    const shards = await shardsOf([writeVert(headerCopiesCorpus(10_000, 1000), "plain")], simhashShard, {}, "/nonexistent", 1 << 20);
    const n = shards.reduce((s, x) => s + x.ids.length, 0);
    const words = concatU32(shards.map((s) => s.simhashes));
    const empty = shards.flatMap((s) => Array.from(s.empty));
    const { graph, candidates } = simhashGraph(shards, n, 5);
    expect(Array.from(graph.firstOf)).toEqual(firstOfByKey(empty.map((e, d) => (e ? null : words.subarray(12 * d, 12 * d + 12).join()))));
    // At most ALL_PAIRS_BUCKET / 2 candidates per leader and block, where m(m−1)/2 would be 5·10^7.
    expect(candidates).toBeLessThan((SIMHASH_WORDS * ALL_PAIRS_BUCKET * leaderSet(graph).size) / 2);
    expect(simhashGraph(shards, n, 5, Infinity).candidates).toBeGreaterThan(2 * candidates);
    const clusters = graphClusters(graph);
    expect(clusters).toEqual(bruteLeaderClusters(graph, (a, b) => simhashDistance(words, 12 * a, 12 * b) <= 5));
    expect(new Set(clusters).size).toBeLessThan(n / 2);
  });
});
