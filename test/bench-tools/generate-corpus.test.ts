import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_GENERATOR, generateCorpus } from "../../scripts/generate-corpus.js";
import { COMMA, NUMBER_BASE, PARAGRAPH, SENTENCE_END, VerticalRenderer } from "../../scripts/bench/document.js";
import { emptyWarnings } from "../../src/corpus/vertical.js";
import { readCorpus } from "../helpers/vert.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-gen-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("VerticalRenderer", () => {
  it("renders structure, glue, numbers and a capitalised first word (a non-ASCII letter too), in blocks that add up", () => {
    const r = new VerticalRenderer(["čaj", "a", "dům"], 8);
    r.add("d1", Int32Array.from([0, 1, COMMA, NUMBER_BASE - 404, SENTENCE_END, 2, SENTENCE_END, PARAGRAPH, 1, SENTENCE_END, PARAGRAPH]));
    const first = Buffer.from(r.take()).toString("utf8");
    expect(first).toBe(
      '<doc id="d1">\n<p>\n<s>\nČaj\na\n<g/>\n,\n404\n<g/>\n.\n</s>\n<s>\nDům\n<g/>\n.\n</s>\n</p>\n<p>\n<s>\nA\n<g/>\n.\n</s>\n</p>\n</doc>\n',
    );
    // Every code a full stop: the block grows for the longest pieces.
    r.add("d2", new Int32Array(50).fill(SENTENCE_END));
    expect(Buffer.from(r.take()).toString("utf8")).toBe('<doc id="d2">\n<p>\n<s>\n' + "<g/>\n.\n</s>\n<s>\n".repeat(49) + "<g/>\n.\n</s>\n</doc>\n");
    expect(r.size).toBe(0);
  });
});

describe("generate-corpus", () => {
  const opts = { ...DEFAULT_GENERATOR, docs: 400, vocab: 5000, dupShare: 0.2 };

  it("writes well-formed vertical text the reader accepts without warnings", async () => {
    const { tokens } = await generateCorpus(join(dir, "a.vert"), join(dir, "a.truth.tsv"), opts);
    const { docs, warnings } = await readCorpus([join(dir, "a.vert")], 1 << 16);
    expect(docs).toHaveLength(400);
    expect(warnings).toEqual(emptyWarnings());
    expect(docs.reduce((n, d) => n + d.tokens.length, 0)).toBe(tokens);
  });

  it("plants copies of earlier documents: an edit rate of 0 gives the same tokens", async () => {
    const { docs } = await readCorpus([join(dir, "a.vert")], 1 << 16);
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
    const plain = (await readCorpus([join(dir, "a.vert")], 1 << 16)).docs.map((d) => d.tokens.join(" "));
    expect((await readCorpus([join(dir, "b.vert.gz")], 1 << 16)).docs.map((d) => d.tokens.join(" "))).toEqual(plain);
    expect((await readCorpus([join(dir, "c.vert.zst")], 1 << 16)).docs.map((d) => d.tokens.join(" "))).toEqual(plain);
  });
});
