import { afterAll, describe, expect, it } from "vitest";
import { hashSequence, hashString } from "../../src/features/hash.js";
import { sortedJaccard } from "../../src/methods/jaccard.js";
import { paragraphPairs, paragraphSets, paragraphShard, shortLongPairs } from "../../src/methods/paragraphs.js";
import { emptyWarnings, parseChunk, type VerticalDoc } from "../../src/corpus/vertical.js";
import { cleanupVerts, readCorpus, writeVert } from "../helpers/vert.js";
import { brutePairs, nearDuplicateCorpus, pairStrings, shardsOf } from "./features.js";

afterAll(cleanupVerts);
const NORM = { lowercase: true, keepNumbers: false };

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

describe("paragraphPairs and shortLongPairs equal brute force", () => {
  for (const [name, paths] of [
    ["random", () => [writeVert(nearDuplicateCorpus(250, 3, 12), "zst")]],
    ["real", () => ["data-samples/sample.vert.gz"]],
  ] as const) {
    it(`on ${name} data`, async () => {
      const shortTokens = name === "random" ? 8 : 40;
      const shards = await shardsOf(paths(), paragraphShard, { shortTokens });
      const { docs } = await readCorpus(paths(), 1 << 20, { paragraphs: true });
      const sets = docs.map((d) => paragraphSets(d, shortTokens, NORM));
      const J = (a: Float64Array, b: Float64Array) => sortedJaccard(a, 0, a.length, b, 0, b.length);
      for (const t of [0.5, 0.8]) {
        const { pairs } = paragraphPairs(shards, docs.length, t);
        const expected = brutePairs(docs.length, (a, b) => J(sets[a].long, sets[b].long), (j) => j >= t);
        expect(pairStrings(pairs.sortedKeys(), docs.length, (a, b) => pairs.similarity(a, b))).toEqual(expected);
        expect(expected.length).toBeGreaterThan(3);
        const sl = shortLongPairs(shards, docs.length, t).map((p) => `${p.a}:${p.b}`);
        const slExpected = expected
          .map((s) => s.split("=")[0].split(":").map(Number))
          .filter(([a, b]) => sets[a].short.length + sets[b].short.length > 0 && J(sets[a].short, sets[b].short) < t)
          .map(([a, b]) => `${a}:${b}`);
        expect(sl).toEqual(slExpected);
      }
    });
  }
});
