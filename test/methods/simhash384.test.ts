import { afterAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { simhash384, simhashDistance, simhashPairs, simhashShard, SIMHASH_WORDS } from "../../src/methods/simhash384.js";
import { VertdupError } from "../../src/util/errors.js";
import { cleanupVerts, writeVert } from "../helpers/vert.js";
import { brutePairs, nearDuplicateCorpus, pairStrings, shardsOf } from "./features.js";

afterAll(cleanupVerts);
const NORM = { lowercase: true, keepNumbers: false };

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

  it("counts differing bits", () => {
    const words = new Uint32Array(24);
    words[12] = 0b1011;
    words[23] = 0x80000000;
    expect(simhashDistance(words, 0, 12)).toBe(4);
    expect(simhashDistance(words, 12, 12)).toBe(0);
  });
});

describe("simhashPairs equals brute force", () => {
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
    const pairs = simhashPairs(shards, n, maxDistance);
    const found = pairStrings(pairs.sortedKeys(), n, (a, b) => pairs.similarity(a, b));
    const expected = brutePairs(
      n,
      (a, b) => (empty[a] || empty[b] ? null : simhashDistance(words, a * 12, b * 12)),
      (d) => d <= maxDistance,
    ).map((s) => s.replace(/=(.*)$/, (_, d) => `=${(1 - Number(d) / 384).toFixed(6)}`));
    expect(found).toEqual(expected);
    return found.length;
  };

  it("on random near-duplicates, for several distances", async () => {
    const text = nearDuplicateCorpus(300, 7, 40);
    for (const d of [0, 5, 11]) expect(await check(text, d)).toBeGreaterThan(0);
  });

  it("on the real sample corpus", async () => {
    expect(await check(["data-samples/sample.vert.gz"], 5)).toBeGreaterThan(20);
  });

  it("refuses a distance the pigeonhole cannot guarantee", () => {
    expect(() => simhashPairs([], 0, 12)).toThrow(VertdupError);
  });
});
