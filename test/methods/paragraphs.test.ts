import { afterAll, describe, expect, it } from "vitest";
import { hashSequence, hashString } from "../../src/features/hash.js";
import { sortedJaccard } from "../../src/methods/sets/jaccard.js";
import { CorpusSets, paragraphGraph, paragraphSets, paragraphShard, shortLongPairs } from "../../src/methods/paragraph-sets/paragraph-sets.js";
import { ALL_PAIRS_BUCKET } from "../../src/methods/sets/bucket-candidates.js";
import { partitionNumbers } from "../../src/clusters/partitions.js";
import { emptyWarnings, parseChunk, type VerticalDoc } from "../../src/corpus/vertical.js";
import { cleanupVerts, readCorpus, writeVert } from "../helpers/vert.js";
import { bruteClusters, bruteFirstOf, bruteLeaderClusters, brutePairs, edgeStrings, firstOfByKey, graphClusters, headerCopiesCorpus, leaderSet, nearDuplicateCorpus, shardsOf } from "./features.js";

afterAll(cleanupVerts);
const NORM = { normalize: "nfc" as const, lowercase: true, keepNumbers: false };

function parseOne(text: string): VerticalDoc {
  const docs: VerticalDoc[] = [];
  const chunk = { index: 0, file: "m.vert", firstLine: 1, firstDoc: 0, docCount: 1, bytes: Buffer.from(text) };
  parseChunk(chunk, { column: 0, idAttr: "id", paragraphs: true }, emptyWarnings(), (d) => docs.push(d));
  return docs[0];
}

describe("paragraph fingerprints", () => {
  it("records <p> token ranges only when asked, closing an unclosed <p> at the next one", () => {
    const doc = parseOne('<doc id="a">\n<head>\nT\n</head>\n<p>\nx\ny\n</p>\n<p>\nz\n<p>\nw\n</doc>\n');
    expect(doc.paragraphs).toEqual([1, 3, 3, 4, 4, 5]);
    const docs: VerticalDoc[] = [];
    parseChunk({ index: 0, file: "m", firstLine: 1, firstDoc: 0, docCount: 1, bytes: Buffer.from('<doc>\n<p>\nx\n</p>\n</doc>\n') }, { column: 0, idAttr: "id" }, emptyWarnings(), (d) => docs.push(d));
    expect(docs[0].paragraphs).toBeUndefined();
  });

  it("hashes each paragraph's kept tokens; short ones (< 9) apart; no <p> = one paragraph", () => {
    const long = Array.from({ length: 9 }, (_, i) => `w${i}`);
    const doc = parseOne(`<doc>\n<p>\n${long.join("\n")}\n</p>\n<p>\nA\n,\nb\n</p>\n<p>\n.\n</p>\n</doc>\n`);
    const sets = paragraphSets(doc, 9, NORM);
    expect(Array.from(sets.long)).toEqual([hashSequence(long.map(hashString), 0, 9)]);
    expect(Array.from(sets.short)).toEqual([hashSequence(["a", "b"].map(hashString), 0, 2)]);
    const flat = paragraphSets(parseOne("<doc>\nx\ny\n</doc>\n"), 1, NORM);
    expect(flat.long.length).toBe(1);
  });
});

describe("paragraphGraph and shortLongPairs equal brute force", () => {
  for (const [name, paths] of [
    ["random", () => [writeVert(nearDuplicateCorpus(250, 3, 12), "zst")]],
    ["real", () => ["data-samples/sample.vert.gz"]],
  ] as const) {
    it(`on ${name} data`, async () => {
      const shortTokens = name === "random" ? 8 : 40;
      const shards = await shardsOf(paths(), paragraphShard, { shortTokens });
      const { docs } = await readCorpus(paths(), 1 << 20, { paragraphs: true });
      const n = docs.length;
      const sets = docs.map((d) => paragraphSets(d, shortTokens, NORM));
      const J = (a: Float64Array, b: Float64Array) => sortedJaccard(a, 0, a.length, b, 0, b.length);
      let edgesSeen = 0;
      for (const t of [0.5, 0.8]) {
        const { graph } = paragraphGraph(shards, n, t, Infinity);
        expect(Array.from(graph.firstOf)).toEqual(bruteFirstOf(n, (d) => sets[d].long.length > 0, (a, b) => J(sets[a].long, sets[b].long) === 1));
        const leaders = leaderSet(graph);
        const edges = brutePairs(n, (a, b) => J(sets[a].long, sets[b].long), (j) => j >= t, (d) => leaders.has(d));
        expect(edgeStrings(graph)).toEqual(edges);
        edgesSeen += edges.length;
        const truth = bruteClusters(n, (a, b) => J(sets[a].long, sets[b].long) >= t);
        for (const bound of [2, ALL_PAIRS_BUCKET]) expect(graphClusters(paragraphGraph(shards, n, t, bound).graph)).toEqual(truth);
        // short-long expands the groups and edges into every document pair of the brute force.
        const expected = brutePairs(n, (a, b) => J(sets[a].long, sets[b].long), (j) => j >= t);
        expect(expected.length).toBeGreaterThan(3);
        const slExpected = expected
          .map((s) => s.split("=")[0].split(":").map(Number))
          .filter(([a, b]) => sets[a].short.length + sets[b].short.length > 0 && J(sets[a].short, sets[b].short) < t)
          .map(([a, b]) => `${a}:${b}`);
        expect(shortLongPairs(shards, n, t, 0, Infinity).map((p) => `${p.a}:${p.b}`)).toEqual(slExpected);
        expect(shortLongPairs(shards, n, t).map((p) => `${p.a}:${p.b}`)).toEqual(slExpected);
      }
      // The real sample's long-paragraph duplicates are all exact: its edges are empty.
      if (name === "random") expect(edgesSeen).toBeGreaterThan(3);
    });
  }

  it("short-long with partitions is the pairs without them whose documents share a partition, for every bucket bound", async () => {
    // Documents r0, r3, … in de, r1, r4, … in fr, the others without lang (the empty value): a near copy's source is in another partition 2 times in 3.
    const corpus = nearDuplicateCorpus(250, 3, 12).replace(/<doc id="r(\d+)">/g, (tag, d: string) => (Number(d) % 3 === 2 ? tag : `<doc id="r${d}" lang="${Number(d) % 3 === 0 ? "de" : "fr"}">`));
    const shards = await shardsOf([writeVert(corpus, "plain")], paragraphShard, { shortTokens: 8, partitionAttr: "lang" });
    const n = shards.reduce((s, x) => s + x.ids.length, 0);
    const part = partitionNumbers(shards.map((s) => s.parts), "lang");
    expect(new Set(part).size).toBe(3);
    for (const t of [0.5, 0.8]) {
      const all = shortLongPairs(shards, n, t, 0, Infinity);
      const within = all.filter((p) => part[p.a] === part[p.b]);
      expect(within.length).toBeGreaterThan(3);
      expect(within.length).toBeLessThan(all.length);
      for (const bound of [2, ALL_PAIRS_BUCKET, Infinity]) expect(shortLongPairs(shards, n, t, 0, bound, part), `t ${t} bound ${bound}`).toEqual(within);
    }
  });

  it("short-long refuses more document pairs than the limit", async () => {
    const shards = await shardsOf([writeVert(headerCopiesCorpus(100, 1), "plain")], paragraphShard, { shortTokens: 3 });
    expect(() => shortLongPairs(shards, 111, 0.8, 4000)).toThrow(/4950 document pairs to compare, more than --pairs-limit 4000/);
    expect(shortLongPairs(shards, 111, 0.8, 4950)).toEqual([]);
  });

  it("joins 10,000 near copies differing in a header paragraph with O(copies) candidates, as brute force does", async () => {
    const shards = await shardsOf([writeVert(headerCopiesCorpus(10_000, 1000), "plain")], paragraphShard, { shortTokens: 3 }, "/nonexistent", 1 << 20);
    const n = shards.reduce((s, x) => s + x.ids.length, 0);
    const sets = new CorpusSets(shards.map((s) => s.long));
    const key = (d: number) => (sets.size(d) === 0 ? null : sets.values.subarray(sets.starts[d], sets.starts[d + 1]).join());
    const { graph, candidates } = paragraphGraph(shards, n, 0.8);
    expect(Array.from(graph.firstOf)).toEqual(firstOfByKey(Array.from({ length: n }, (_, d) => key(d))));
    expect(paragraphGraph(shards, n, 0.8, Infinity).candidates).toBeGreaterThan(10 * candidates);
    const clusters = graphClusters(graph);
    expect(clusters).toEqual(bruteLeaderClusters(graph, (a, b) => sets.jaccard(a, b) >= 0.8));
    expect(new Set(clusters).size).toBe(1 + 1000);
  });
});
