import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_GENERATOR, generateCorpus } from "../../scripts/generate-corpus.js";
import { chunkCorpus } from "../../src/corpus/chunker.js";
import { emptyWarnings, parseChunk, type VerticalDoc } from "../../src/corpus/vertical.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-gen-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function readDocs(path: string): Promise<{ docs: VerticalDoc[]; warnings: ReturnType<typeof emptyWarnings> }> {
  const warnings = emptyWarnings();
  const docs: VerticalDoc[] = [];
  for await (const chunk of chunkCorpus([path], 1 << 16)) parseChunk(chunk, { column: 0, idAttr: "id" }, warnings, (d) => docs.push(d));
  return { docs, warnings };
}

describe("generate-corpus", () => {
  const opts = { ...DEFAULT_GENERATOR, docs: 400, vocab: 5000, dupShare: 0.2 };

  it("writes well-formed vertical text the reader accepts without warnings", async () => {
    const { tokens } = await generateCorpus(join(dir, "a.vert"), join(dir, "a.truth.tsv"), opts);
    const { docs, warnings } = await readDocs(join(dir, "a.vert"));
    expect(docs).toHaveLength(400);
    expect(warnings).toEqual(emptyWarnings());
    expect(docs.reduce((n, d) => n + d.tokens.length, 0)).toBe(tokens);
  });

  it("plants copies of earlier documents: an edit rate of 0 gives the same tokens", async () => {
    const { docs } = await readDocs(join(dir, "a.vert"));
    const byId = new Map(docs.map((d) => [d.id, d]));
    const truth = readFileSync(join(dir, "a.truth.tsv"), "utf8").trim().split("\n").slice(1).map((l) => l.split("\t"));
    expect(truth.length).toBeGreaterThan(40);
    for (const [copy, source, rate] of truth) {
      expect(byId.get(copy)!.ordinal).toBeGreaterThan(byId.get(source)!.ordinal);
      if (Number(rate) === 0) expect(byId.get(copy)!.tokens.join(" ").toLowerCase()).toBe(byId.get(source)!.tokens.join(" ").toLowerCase());
    }
  });

  it("is seeded: the same options give the same bytes, compressed or not", async () => {
    await generateCorpus(join(dir, "b.vert.gz"), join(dir, "b.truth.tsv"), opts);
    await generateCorpus(join(dir, "c.vert.zst"), join(dir, "c.truth.tsv"), opts);
    expect(readFileSync(join(dir, "b.truth.tsv"))).toEqual(readFileSync(join(dir, "a.truth.tsv")));
    const plain = (await readDocs(join(dir, "a.vert"))).docs.map((d) => d.tokens.join(" "));
    expect((await readDocs(join(dir, "b.vert.gz"))).docs.map((d) => d.tokens.join(" "))).toEqual(plain);
    expect((await readDocs(join(dir, "c.vert.zst"))).docs.map((d) => d.tokens.join(" "))).toEqual(plain);
  });
});
