import { afterAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import fc from "fast-check";
import { Simhasher, simhashDistance, simhashGraph, simhashShard } from "../../src/methods/simhash384/simhash384.js";
import { SIMHASH_WORDS } from "../../src/core/method-options.js";
import { ALL_PAIRS_BUCKET } from "../../src/methods/sets/bucket-candidates.js";
import { VertdupError } from "../../src/core/errors.js";
import { normalizeToken } from "../../src/features/normalize.js";
import { concatU32 } from "../../src/util/typed-arrays.js";
import { cleanupVerts, writeVert } from "../helpers/vert.js";
import { bruteClusters, bruteLeaderClusters, firstOfByKey, bruteFirstOf, brutePairs, edgeStrings, graphClusters, headerCopiesCorpus, leaderSet, nearDuplicateCorpus, shardsOf } from "./features.js";

afterAll(cleanupVerts);
const NORM = { normalize: "nfc" as const, lowercase: true, keepNumbers: false };
/** The simhash of tokens read as strings, through a cache of `limit` terms. */
const simhash384 = (tokens: string[], limit?: number) => {
  const s = new Simhasher(NORM, limit);
  return s.of(tokens.map((t) => s.slotOfToken(t)));
};

describe("simhash384", () => {
  it("is the sign of the summed ±1 bits of the tokens' SHA-384", () => {
    const one = simhash384(["Praha"]) as Uint32Array;
    const digest = createHash("sha384").update("praha").digest();
    expect(Array.from(one)).toEqual(Array.from({ length: 12 }, (_, w) => digest.readUInt32BE(4 * w)));
    // Two different tokens once each: every sum is 0 or ±2; 0 gives a clear bit.
    const two = simhash384(["a", "b"]) as Uint32Array;
    const a = simhash384(["a"]) as Uint32Array;
    const b = simhash384(["b"]) as Uint32Array;
    for (let w = 0; w < 12; w++) expect(two[w] >>> 0).toBe((a[w] & b[w]) >>> 0);
    expect(simhash384([",", "42"])).toBeNull();
  });

  /** The definition, term by term: ±1 sums of the SHA-384 bits of the normalised tokens. */
  const reference = (tokens: string[]) => {
    const sums = new Int32Array(384);
    let kept = 0;
    for (const t of tokens) {
      const term = normalizeToken(t, NORM);
      if (term === null) continue;
      kept++;
      const d = createHash("sha384").update(term).digest();
      for (let i = 0; i < 384; i++) sums[i] += (d[i >> 3] >> (7 - (i & 7))) & 1 ? 1 : -1;
    }
    const out = new Uint32Array(12);
    for (let i = 0; i < 384; i++) if (sums[i] > 0) out[i >> 5] |= 1 << (31 - (i & 31));
    return kept === 0 ? null : Array.from(out);
  };
  const plain = (s: Uint32Array | null) => (s === null ? null : Array.from(s));
  // Tokens the byte-level hasher reads itself and those it hands to the string path.
  const TOKENS = ["a", "B", "c", "Praha", "praha", "Straße", "É", "e\u0301", "é", "ΣΑΣ", "σας", "İ", "42", ",", "x2", "日本", "\u200bok", "ﬁ"];

  it("equals the ±1 sums of its definition (bit-sliced counters), for any multiset of tokens", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f", "g"), { minLength: 1, maxLength: 300 }), (tokens) => {
        expect(plain(simhash384(tokens))).toEqual(reference(tokens));
      }),
      { numRuns: 300 },
    );
  });

  it("gives every document its definition's simhash while its cache of terms is emptied between documents", () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }), { minLength: 1, maxLength: 12 }), (docs) => {
        const hasher = new Simhasher(NORM, 3);
        for (const tokens of docs) expect(plain(hasher.of(tokens.map((t) => hasher.slotOfToken(t))))).toEqual(reference(tokens));
      }),
      { numRuns: 200 },
    );
  });

  it("reads a chunk's tokens from their bytes as the string path reads them", async () => {
    const docs = Array.from({ length: 60 }, (_, d) => Array.from({ length: 5 + ((d * 7) % 30) }, (_, k) => TOKENS[(d * 31 + k * k) % TOKENS.length]));
    const text = docs.map((tokens, d) => `<doc id="d${d}">\n${tokens.map((t) => `${t}\tx\n`).join("")}</doc>\n`).join("");
    const shards = await shardsOf([writeVert(text, "plain")], simhashShard, {}, "/nonexistent", 512);
    expect(shards.length).toBeGreaterThan(3);
    const got = shards.flatMap((s) => Array.from({ length: s.ids.length }, (_, i) => (s.empty[i] ? null : Array.from(s.simhashes.subarray(i * 12, i * 12 + 12)))));
    expect(got).toEqual(docs.map(reference));
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
