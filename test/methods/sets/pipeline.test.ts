import type { MethodRun } from "../../../src/methods/sets/set-method.js";
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shingleSet } from "../../../src/methods/minhash/minhash.js";
import { sortedJaccard } from "../../../src/methods/sets/jaccard.js";
import { runSetMethod } from "../../helpers/set-method.js";
import { cleanupVerts, readCorpus, writeVert } from "../../helpers/vert.js";
import { FEATURES } from "../features.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-method-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  cleanupVerts();
});
const EXEC = { workers: 2, chunkBytes: 1 << 16 };
const NORM = { normalize: "nfc" as const, lowercase: true, keepNumbers: false };

function run(method: MethodRun["method"], threshold = 0.8, memory = 2 ** 31, pairs: MethodRun["pairs"] = { mode: "edges", limit: 0 }): MethodRun {
  return { method, features: FEATURES, search: { threshold, maxDistance: 5, memory }, keep: "longest", pairs };
}

function readPairs(outdir: string): Map<string, number> {
  const lines = readFileSync(join(outdir, "pairs.tsv"), "utf8").trim().split("\n");
  expect(lines[0]).toBe("doc_a\tdoc_b\tsimilarity");
  return new Map(lines.slice(1).map((l) => l.split("\t")).map(([a, b, s]) => [`${a}\t${b}`, Number(s)]));
}

describe("a set method's pipeline (pool, files, manifest)", () => {
  it("minhash: every reported similarity is the exact Jaccard ≥ threshold; recall of the exact set is high", async () => {
    const input = "data-samples/sample.vert.gz";
    const out = join(dir, "minhash");
    // --pairs all: every document pair of the groups and edges, to compare with all exact pairs.
    const m = await runSetMethod([input], join(dir, "work-mh"), out, run("minhash", 0.8, 2 ** 31, { mode: "all", limit: 0 }), EXEC);
    const { docs } = await readCorpus([input]);
    const sets = docs.map((d) => shingleSet(d.tokens, 5, NORM));
    const truth = new Map<string, number>();
    for (let a = 0; a < docs.length; a++) {
      for (let b = a + 1; b < docs.length; b++) {
        const j = sortedJaccard(sets[a], 0, sets[a].length, sets[b], 0, sets[b].length);
        if (j >= 0.8) truth.set(`${docs[a].id}\t${docs[b].id}`, j);
      }
    }
    const found = readPairs(out);
    for (const [pair, s] of found) expect(truth.has(pair) && truth.get(pair)?.toFixed(4) === s.toFixed(4)).toBe(true);
    expect(found.size / truth.size).toBeGreaterThanOrEqual(0.95);
    expect(m.counts.pairs).toBe(found.size);
    expect(m.similarity).toMatch(/Jaccard/);
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(manifest.method).toBe("minhash");
    expect(manifest.clusters.duplicates).toBeGreaterThan(0);
  });

  it("is independent of chunk size and worker count", async () => {
    const outputs: string[] = [];
    for (const [chunkBytes, workers] of [[1 << 12, 1], [1 << 20, 2]]) {
      for (const method of ["exact", "simhash384", "minhash", "paragraphs"] as const) {
        const out = join(dir, `inv-${method}-${chunkBytes}`);
        await runSetMethod(["data-samples/sample.vert.gz"], join(dir, `w-${method}-${chunkBytes}`), out, run(method), { workers, chunkBytes });
        outputs.push(["groups.tsv", "pairs.tsv", "clusters.tsv"].map((f) => readFileSync(join(out, f), "utf8")).join(""));
      }
    }
    expect(outputs.slice(4)).toEqual(outputs.slice(0, 4));
  });

  it("minhash verification in many small memory blocks finds the same pairs as in one", async () => {
    const outputs: string[] = [];
    const blocks: number[] = [];
    for (const memory of [2 ** 31, 1 << 15]) {
      const out = join(dir, `mh-memory-${memory}`);
      const m = await runSetMethod(["data-samples/sample.vert.gz"], join(dir, `w-mh-memory-${memory}`), out, run("minhash", 0.5, memory, { mode: "all", limit: 0 }), EXEC);
      blocks.push(m.counts.verifyBlocks ?? -1);
      outputs.push(readFileSync(join(out, "pairs.tsv"), "utf8"));
    }
    expect(blocks[0]).toBe(1);
    expect(blocks[1]).toBeGreaterThan(10);
    expect(outputs[0].split("\n").length).toBeGreaterThan(50);
    expect(outputs[1]).toBe(outputs[0]);
  });

  it("takes seconds for a group of 200,000 identical documents, with outputs linear in it", async () => {
    const lines: string[] = [];
    for (let i = 0; i < 200_000; i++) lines.push(`<doc id="d${i}">\nnot\nfound\nhere\n</doc>`);
    for (let i = 0; i < 20; i++) lines.push(`<doc id="u${i}">\n${Array.from({ length: 12 }, (_, k) => `u${i}w${k}`).join("\n")}\n</doc>`);
    const input = writeVert(lines.join("\n") + "\n", "plain");
    const started = Date.now();
    for (const method of ["exact", "simhash384", "minhash", "paragraphs"] as const) {
      const out = join(dir, `copies-${method}`);
      const copies = { ...run(method), features: { ...FEATURES, shortTokens: 3 } };
      const m = await runSetMethod([input], join(dir, `w-copies-${method}`), out, copies, EXEC);
      expect(m.clusters).toMatchObject({ clusters: 1, documentsInClusters: 200_000, duplicates: 199_999 });
      expect(m.counts.candidates).toBeLessThan(1000);
      const sizes = ["groups.tsv", "pairs.tsv", "clusters.tsv"].map((f) => statSync(join(out, f)).size);
      expect(sizes[1]).toBeLessThan(1000);
      expect(sizes[0] + sizes[2]).toBeLessThan(200_000 * 50);
    }
    expect(Date.now() - started).toBeLessThan(120_000);
  }, 180_000);

  it("stops with file:line on bad input", async () => {
    const bad = writeVert('<doc id="a">\nx\n<doc id="b">\ny\n</doc>\n', "plain");
    await expect(runSetMethod([bad], join(dir, "w-bad"), join(dir, "bad"), run("exact"), EXEC)).rejects.toThrow(/:3: <doc> inside/);
  });
});
