import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkerPool } from "../../src/executor/pool.js";
import { METHODS_WORKERS } from "../../src/methods/sets/methods-entry.js";
import { ALL_PAIRS_BUCKET, NEIGHBOURS } from "../../src/methods/sets/bucket-candidates.js";
import type { FeatureOptions } from "../../src/core/method-options.js";
import { minhashGraph, type KnownEdges } from "../../src/methods/minhash/search.js";
import { edgeOrder } from "../../src/output/pairs.js";
import { minhashShard, bandKeys, lowBitsOf, minhashSignature, Permutations, shingleSet } from "../../src/methods/minhash/minhash.js";
import { cleanupVerts, readCorpus, writeVert } from "../helpers/vert.js";
import { bruteClusters, bruteLeaderClusters, brutePairs, edgeStrings, FEATURES, firstOfByKey, graphClusters, headerCopiesCorpus, leaderSet, nearDuplicateCorpus, shardsOf } from "./features.js";
import { hashString, windowHash, windowHashes } from "../../src/features/hash.js";
import { bandsForThreshold, candidateProbability, resolveBands } from "../../src/methods/sets/lsh-bands.js";
import { sortedJaccard, sortedSet } from "../../src/methods/sets/jaccard.js";
import { MinhashWasm } from "../../src/methods/minhash/minhash-wasm.js";
import { VertdupError } from "../../src/core/errors.js";

const NORM = { normalize: "nfc" as const, lowercase: true, keepNumbers: false };

function lows(values: Float64Array): Int32Array {
  const out = new Int32Array(values.length);
  lowBitsOf(values, 0, values.length, out);
  return out;
}

describe("shingle sets", () => {
  it("are the distinct sorted k-word shingle hashes; short documents are one shingle", () => {
    const h = ["a", "b", "c", "a", "b", "c"].map(hashString);
    expect(Array.from(shingleSet(["A", "b", ",", "c", "a", "b", "c"], 3, NORM))).toEqual(
      Array.from(sortedSet([0, 1, 2, 3].map((i) => windowHash(h, i, 3)))).slice(0, 3),
    );
    expect(Array.from(shingleSet(["a", "b"], 3, NORM))).toEqual([windowHash(h, 0, 2)]);
    expect(shingleSet([",", "7"], 3, NORM).length).toBe(0);
  });

  it("rolling window hashes equal the direct ones, are 53-bit and tell windows apart", () => {
    let seed = 11;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const tokens = Array.from({ length: 2000 }, () => (next() & 0x1f_ffff) * 2 ** 32 + next());
    for (const k of [1, 2, 3, 5, 7, 64]) {
      for (const m of [0, 1, k - 1, k, k + 1, 2000]) {
        if (m < 0) continue;
        const out = new Float64Array(m + 1);
        const n = windowHashes(tokens, m, k, out, 1);
        expect(n).toBe(m === 0 ? 0 : Math.max(1, m - k + 1));
        const direct = m === 0 ? [] : m < k ? [windowHash(tokens, 0, m)] : Array.from({ length: m - k + 1 }, (_, i) => windowHash(tokens, i, k));
        expect(Array.from(out.subarray(1, 1 + n))).toEqual(direct);
        for (const v of direct) expect(Number.isSafeInteger(v) && v >= 0).toBe(true);
      }
    }
    // 2000 random tokens: every 5-window distinct; a window and its reverse differ.
    const out = new Float64Array(2000);
    const n = windowHashes(tokens, 2000, 5, out, 0);
    expect(new Set(out.subarray(0, n)).size).toBe(n);
    expect(windowHash([tokens[0], tokens[1]], 0, 2)).not.toBe(windowHash([tokens[1], tokens[0]], 0, 2));
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
      minhashSignature(lows(a), a.length, perms, sa);
      minhashSignature(lows(b), b.length, perms, sb);
      const agree = sa.filter((v, i) => v === sb[i]).length / 512;
      expect(Math.abs(agree - sortedJaccard(a, 0, a.length, b, 0, b.length))).toBeLessThan(0.07);
    }
  });

  it("the WebAssembly kernel gives the reference's signatures, bit for bit", () => {
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (const count of [16, 128, 256]) {
      const perms = new Permutations(count, count);
      const kernel = MinhashWasm.create(perms);
      expect(kernel).not.toBeNull();
      // 9000 values outgrow the kernel's first memory; 0 gives the all-0x7fffffff signature.
      for (const n of [0, 1, 3, 300, 9000, 5]) {
        const values = Float64Array.from({ length: n }, () => next() * 2 ** 21 + next());
        const expected = new Int32Array(count);
        minhashSignature(lows(values), n, perms, expected);
        lowBitsOf(values, 0, n, kernel!.reserve(n));
        kernel!.sign(n);
        expect(Array.from(kernel!.signature)).toEqual(Array.from(expected));
      }
    }
    expect(MinhashWasm.create(new Permutations(100, 1))).toBeNull();
  });

  it("the compiled minhash.wat gives the reference's signatures on random permutations and sets", () => {
    const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }),
        fc.integer(),
        // Several sets through one kernel: nothing of a set survives into the next; up to 6000
        // values outgrow its first memory.
        fc.array(fc.oneof(fc.array(int32, { maxLength: 40 }), fc.array(int32, { maxLength: 6000 })), { minLength: 1, maxLength: 4 }),
        (blocks, seed, sets) => {
          const perms = new Permutations(16 * blocks, seed);
          const kernel = MinhashWasm.create(perms)!;
          const expected = new Int32Array(perms.count);
          for (const set of sets) {
            kernel.reserve(set.length).set(set);
            kernel.sign(set.length);
            minhashSignature(Int32Array.from(set), set.length, perms, expected);
            expect(kernel.signature).toEqual(expected);
          }
        },
      ),
      { numRuns: 150 },
    );
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

describe("minhashGraph (pool verification) against brute force", () => {
  const dir = mkdtempSync(join(tmpdir(), "vertdup-minhash-"));
  const pool = new WorkerPool(METHODS_WORKERS, 1);
  afterAll(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
    cleanupVerts();
  });
  let runs = 0;

  /** Shards (sets files in a work directory of their own), exact shingle sets and a search. */
  async function prepare(paths: string[], options: Partial<FeatureOptions>) {
    const workdir = join(dir, `w${runs++}`);
    mkdirSync(join(workdir, "methods"), { recursive: true });
    const shards = await shardsOf(paths, minhashShard, options, workdir, 1 << 16);
    const { docs } = await readCorpus(paths);
    const sets = docs.map((d) => shingleSet(d.tokens, options.shingleSize ?? FEATURES.shingleSize, NORM));
    const n = docs.length;
    const search = (allPairsBucket: number) => minhashGraph(shards, { documents: n, bands: FEATURES.bands, threshold: 0.8, memory: 1 << 30, workdir, pool, allPairsBucket });
    const J = (a: number, b: number) => sortedJaccard(sets[a], 0, sets[a].length, sets[b], 0, sets[b].length);
    return { n, sets, search, J, shards, workdir };
  }

  it("groups identical sets; edges are exact Jaccard ≥ threshold between leaders; clusters equal brute force", async () => {
    for (const paths of [[writeVert(nearDuplicateCorpus(300, 5, 30), "plain")], ["data-samples/sample.vert.gz"]]) {
      const { n, sets, search, J } = await prepare(paths, {});
      const { graph } = await search(Infinity);
      expect(Array.from(graph.firstOf)).toEqual(firstOfByKey(sets.map((s) => (s.length === 0 ? null : s.join()))));
      const leaders = leaderSet(graph);
      const truth = brutePairs(n, J, (j) => j >= 0.8, (d) => leaders.has(d));
      const found = edgeStrings(graph);
      for (const e of found) expect(truth).toContain(e);
      expect(found.length).toBeGreaterThanOrEqual(0.9 * truth.length);
      const clusters = bruteClusters(n, (a, b) => sets[a].length > 0 && J(a, b) >= 0.8);
      for (const bound of [2, ALL_PAIRS_BUCKET]) expect(graphClusters((await search(bound)).graph)).toEqual(clusters);
    }
  });

  it("joins 10,000 near copies differing in a header paragraph with O(copies) candidates, as brute force does", async () => {
    const { n, sets, search, J } = await prepare([writeVert(headerCopiesCorpus(10_000, 1000), "plain")], { shingleSize: 3 });
    const { graph, candidates } = await search(ALL_PAIRS_BUCKET);
    expect(Array.from(graph.firstOf)).toEqual(firstOfByKey(sets.map((s) => (s.length === 0 ? null : s.join()))));
    // 1 + NEIGHBOURS candidates per leader of a large bucket, where all pairs of the 1000 copies' leaders are 5·10^5.
    expect(candidates).toBeLessThan((2 + NEIGHBOURS) * leaderSet(graph).size);
    const clusters = graphClusters(graph);
    expect(clusters).toEqual(bruteLeaderClusters(graph, (a, b) => J(a, b) >= 0.8));
    expect(new Set(clusters).size).toBe(n - 10_000 + 1);
  });

  it("with an index's edges, verifies only pairs with a new document and finds what one search over all documents finds", async () => {
    const { n, shards, workdir } = await prepare([writeVert(nearDuplicateCorpus(1000, 9, 30), "plain")], {});
    const k = Math.floor(shards.length / 2);
    expect(k).toBeGreaterThan(0);
    const nI = shards.slice(0, k).reduce((m, x) => m + x.tokens.length, 0);
    const settings = (documents: number, threshold: number, allPairsBucket: number, known?: KnownEdges) => ({ documents, bands: FEATURES.bands, threshold, memory: 1 << 30, workdir, pool, allPairsBucket, known });
    for (const bound of [2, ALL_PAIRS_BUCKET]) {
      const index = (await minhashGraph(shards.slice(0, k), settings(nI, 0.8, bound))).graph.edges;
      const order = edgeOrder(index, nI);
      const known: KnownEdges = {
        ranges: [{ from: 0, to: nI }],
        a: order.map((e) => index.a(e)),
        b: order.map((e) => index.b(e)),
        similarity: Float64Array.from(order, (e) => index.similarity(e)),
      };
      for (const threshold of [0.8, 0.9]) {
        const full = await minhashGraph(shards, settings(n, threshold, bound));
        const supplemented = await minhashGraph(shards, settings(n, threshold, bound, known));
        expect(edgeStrings(supplemented.graph)).toEqual(edgeStrings(full.graph));
        expect(Array.from(supplemented.graph.firstOf)).toEqual(Array.from(full.graph.firstOf));
        expect(supplemented.candidates).toBe(full.candidates);
        expect(supplemented.verified).toBeLessThan(full.verified);
      }
    }
  });
});
