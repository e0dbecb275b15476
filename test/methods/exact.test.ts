import { afterAll, describe, expect, it } from "vitest";
import { exactGraph, exactShard, streamDigest } from "../../src/methods/exact/exact.js";
import { normalizeToken } from "../../src/features/normalize.js";
import { NO_DOC } from "../../src/clusters/duplicate-graph.js";
import { cleanupVerts, readCorpus, writeVert } from "../helpers/vert.js";
import { bruteFirstOf, shardsOf } from "./features.js";

afterAll(cleanupVerts);
const NORM = { normalize: "nfc" as const, lowercase: true, keepNumbers: false };

describe("exact", () => {
  it("digests the normalised stream: case, punctuation and glue do not matter, order does", () => {
    const d = (t: string[]) => streamDigest(t, NORM)?.toString("hex");
    expect(d(["Pes", ",", "štěká"])).toBe(d(["pes", "štěká", "."]));
    expect(d(["pes", "štěká"])).not.toBe(d(["štěká", "pes"]));
    expect(d(["ab"])).not.toBe(d(["a", "b"]));
    expect(d([",", "1"])).toBeUndefined();
  });

  it("groups documents with identical streams like brute force, across chunk boundaries; no edges", async () => {
    const lines = ['<doc id="e0">\n</doc>', '<doc id="e1">\n.\n</doc>'];
    const words = ["a", "b", "B", ",", "c"];
    for (let i = 0; i < 200; i++) lines.push(`<doc id="x${i}">`, ...Array.from({ length: 1 + (i % 3) }, (_, k) => words[(i * 7 + k * 3) % 5]), "</doc>");
    for (const paths of [[writeVert(lines.join("\n") + "\n", "gz")], ["data-samples/sample.vert.gz"]]) {
      const { docs } = await readCorpus(paths);
      const norm = docs.map((doc) => doc.tokens.map((t) => normalizeToken(t, NORM)).filter((t) => t !== null).join("\n"));
      const shards = await shardsOf(paths, exactShard);
      const graph = exactGraph(shards, docs.length);
      const expected = bruteFirstOf(docs.length, (d) => norm[d] !== "", (a, b) => norm[a] === norm[b]);
      expect(Array.from(graph.firstOf)).toEqual(expected);
      expect(expected.filter((f, d) => f !== d && f !== NO_DOC).length).toBeGreaterThan(5);
      expect(graph.edges.length).toBe(0);
    }
  });
});
