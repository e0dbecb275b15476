import { readFileSync, truncateSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { decompress } from "zstd-napi";
import fc from "fast-check";
import { afterAll, describe, expect, it, vi } from "vitest";
import { BOUNDARIES, COUNT_RULES, DEFAULT_PARAGRAPH, type ParagraphOptions } from "../../src/core/paragraph-options.js";
import type { ParagraphReport } from "../../src/paragraph-dedup/output-step.js";
import { paragraphs } from "../../src/paragraph-dedup/pipeline.js";
import { IN_PROCESS_BELOW, smallInputs } from "../../src/corpus/open-input.js";
import { vertdup } from "../helpers/cli.js";
import { cleanupVerts, missingPath, writeVert, type VertKind } from "../helpers/vert.js";
import { randomCorpus } from "./random-corpus.js";
import { referenceParagraphs } from "./reference.js";

afterAll(cleanupVerts);
// Each case starts a worker pool; the shared machine can be slow.
vi.setConfig({ testTimeout: 30_000 });

interface Setup {
  workers?: number;
  chunkBytes?: number;
  memory?: number;
  out?: VertKind;
  /** Default here: the worker pool, which the small test corpora would not get by size. */
  inProcess?: boolean;
}

async function dedup(input: string | string[], opts: Partial<ParagraphOptions> = {}, s: Setup = {}): Promise<{ text: string; report: ParagraphReport }> {
  const output = missingPath(`out${s.out === "gz" ? ".vert.gz" : s.out === "zst" ? ".vert.zst" : ".vert"}`);
  const report = await paragraphs(
    Array.isArray(input) ? input : [input],
    output,
    { ...DEFAULT_PARAGRAPH, ...opts },
    { workers: s.workers ?? 2, chunkBytes: s.chunkBytes ?? 1 << 20, quiet: true },
    { memory: s.memory, inProcess: s.inProcess ?? false },
  );
  const raw = readFileSync(output);
  const bytes = s.out === "gz" ? gunzipSync(raw) : s.out === "zst" ? decompress(raw) : raw;
  return { text: bytes.toString("utf8"), report };
}

const v = (...lines: string[]) => `${lines.join("\n")}\n`;
const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const doc = (id: string, ...pars: string[][]) => [`<doc id="${id}">`, ...pars.flatMap((p) => ["<p>", ...p, "</p>"]), "</doc>"];

describe("vertdup paragraphs: equals the sequential reference", () => {
  const corpora = [1, 2, 3].map((seed) => randomCorpus(seed, 120));
  const settings: [string, Partial<ParagraphOptions>][] = [
    ["defaults", {}],
    ["mark, n=3, t=0.3", { ngram: 3, threshold: 0.3, mark: true }],
    ["no smoothing, n=1", { ngram: 1, maxStub: -1 }],
    ["document level, stub 5", { structure: "doc", maxStub: 5, ngram: 4 }],
    ["sentences as units", { structure: "s", threshold: 0.9, ngram: 2 }],
  ];
  for (const [name, opts] of settings) {
    it(`random corpora, ${name}, workers and chunk sizes`, async () => {
      for (const text of corpora) {
        const path = writeVert(text);
        const expected = referenceParagraphs(text, { ...DEFAULT_PARAGRAPH, ...opts });
        const a = await dedup(path, opts, { workers: 1 });
        const b = await dedup(path, opts, { workers: 2, chunkBytes: 300 });
        expect(a.text).toBe(expected);
        expect(b.text).toBe(expected);
        expect({ ...b.report.counts, chunks: 0 }).toEqual({ ...a.report.counts, chunks: 0 });
      }
    });
  }

  it("external mode (n-gram runs and chunks on disk) gives the same output", async () => {
    const text = corpora[0];
    const path = writeVert(text);
    const mem = await dedup(path, {}, { chunkBytes: 500 });
    const ext = await dedup(path, {}, { chunkBytes: 500, memory: 4000 });
    expect(mem.report.mode).toBe("memory");
    expect(ext.report.mode).toBe("external");
    expect(ext.text).toBe(mem.text);
    expect(ext.text).toBe(referenceParagraphs(text, DEFAULT_PARAGRAPH));
  });

  it("a tiny --memory splits bucket tables recursively; plain and compressed inputs, both modes", async () => {
    const text = randomCorpus(5, 400);
    const plain = await dedup(writeVert(text), {}, { chunkBytes: 2000, memory: 3000 });
    expect(plain.report.mode).toBe("external");
    // 3000 bytes leave 23 keys per table: every bucket is split, some twice.
    expect(plain.report.counts.tables).toBeGreaterThan(4 * 256);
    expect(plain.text).toBe(referenceParagraphs(text, DEFAULT_PARAGRAPH));
    const marked = await dedup(writeVert(text, "gz"), { mark: true, ngram: 3 }, { chunkBytes: 2000, memory: 3000, workers: 1 });
    expect(marked.report.counts.tables).toBeGreaterThan(4 * 256);
    expect(marked.text).toBe(referenceParagraphs(text, { ...DEFAULT_PARAGRAPH, mark: true, ngram: 3 }));
  }, 60_000);

  it("one paragraph in every document: n-grams too frequent to split apart (tiny --memory)", async () => {
    const common = words("c", 20);
    const text = v(...Array.from({ length: 300 }, (_, i) => doc(String(i), common, words(`u${i}x`, 10))).flat());
    const r = await dedup(writeVert(text), {}, { chunkBytes: 1000, memory: 2000 });
    expect(r.report.mode).toBe("external");
    expect(r.text).toBe(referenceParagraphs(text, DEFAULT_PARAGRAPH));
    expect(r.report.counts.duplicates).toBe(299);
  }, 60_000);

  it("several inputs form one corpus: later files repeat earlier ones", async () => {
    const a = randomCorpus(7, 40);
    const b = randomCorpus(7, 40).replaceAll('id="d', 'id="e');
    const r = await dedup([writeVert(a), writeVert(b, "gz")], {}, { chunkBytes: 400 });
    expect(r.text).toBe(referenceParagraphs(a + b, DEFAULT_PARAGRAPH));
    expect(r.text).not.toContain('id="e');
  });

  it("the real sample (kjv-3000, planted copies): reference, 1 vs 2 workers, memory vs external", async () => {
    const path = "data-samples/kjv-3000.vert.gz";
    const text = gunzipSync(readFileSync(path)).toString("utf8");
    const expected = referenceParagraphs(text, DEFAULT_PARAGRAPH);
    const two = await dedup(path, {}, { workers: 2, chunkBytes: 256 << 10 });
    expect(two.text).toBe(expected);
    const one = await dedup(path, {}, { workers: 1, chunkBytes: 1 << 20, memory: 1 << 20 });
    expect(one.report.mode).toBe("external");
    expect(one.text).toBe(expected);
    expect(two.report.counts.docsOut).toBeLessThan(two.report.counts.docsIn);
    expect(two.report.counts.duplicates).toBeGreaterThan(500);
  }, 60_000);
});

describe("vertdup paragraphs: counting rules and sentence boundaries", () => {
  // The rules of the parallel pipeline; `tokens` (onion 1.2, sequential) is onion-kept-rule.test.ts's.
  const parallelRules = COUNT_RULES.filter((c) => c !== "tokens");
  const rules = parallelRules.flatMap((count) => BOUNDARIES.map((boundary) => ({ count, boundary })));

  it("every rule and boundary, in process and on pools of 1–3 workers, memory and external: the reference's bytes", async () => {
    const text = randomCorpus(21, 100);
    const path = writeVert(text);
    for (const rule of rules) {
      const opts = { ...rule, ngram: 3, mark: true };
      const expected = referenceParagraphs(text, { ...DEFAULT_PARAGRAPH, ...opts });
      const local = await dedup(path, opts, { chunkBytes: 700, inProcess: true });
      expect(local.report.inProcess).toBe(true);
      expect(local.text).toBe(expected);
      // 3000 bytes split every bucket; 20000 goes external with few splits.
      for (const [workers, memory] of [[1, 20_000], [2, undefined], [3, 3000]] as const) {
        const pooled = await dedup(path, opts, { workers, chunkBytes: 700, memory });
        expect(pooled.report.inProcess).toBe(false);
        expect(pooled.report.mode).toBe(memory === undefined ? "memory" : "external");
        expect(pooled.text).toBe(expected);
        // Tables differ with --memory and workers (the bucket splits), nothing else.
        expect({ ...pooled.report.counts, tables: 0 }).toEqual({ ...local.report.counts, tables: 0 });
      }
    }
  }, 120_000);

  it("property: random corpora and settings equal the reference (in process: the same chunks, buckets, splits and runs)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer({ min: 1, max: 1e6 }),
          docs: fc.integer({ min: 1, max: 40 }),
          ngram: fc.integer({ min: 1, max: 8 }),
          threshold: fc.constantFrom(0, 0.3, 0.5, 0.9),
          count: fc.constantFrom(...parallelRules),
          boundary: fc.constantFrom(...BOUNDARIES),
          structure: fc.constantFrom("p", "s"),
          maxStub: fc.constantFrom(-1, 5, 20),
          workers: fc.integer({ min: 1, max: 3 }),
          chunkBytes: fc.integer({ min: 100, max: 5000 }),
          // External mode from the first chunk; 4000 splits buckets too.
          memory: fc.constantFrom(undefined, 4000, 30_000),
        }),
        async ({ seed, docs, workers, chunkBytes, memory, ...opts }) => {
          const text = randomCorpus(seed, docs);
          const got = await dedup(writeVert(text), { ...opts, mark: true }, { workers, chunkBytes, memory, inProcess: true });
          expect(got.text).toBe(referenceParagraphs(text, { ...DEFAULT_PARAGRAPH, ...opts, mark: true }));
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it("tokens: covered tokens, not repeated n-grams, over the paragraph's tokens (onion 1.2)", async () => {
    // Three repeated 3-grams that do not overlap cover 9 of 10 tokens; 3 of the 10 are n-grams.
    const seen = v(...doc("1", ["a", "b", "c"]), ...doc("2", ["d", "e", "f"]), ...doc("3", ["g", "h", "i"]));
    const input = seen + v(...doc("4", ["a", "b", "c", "d", "e", "f", "g", "h", "i", "z"]));
    const opts = { ngram: 3, maxStub: -1 };
    expect((await dedup(writeVert(input), { ...opts, count: "ngrams" }, { inProcess: true })).report.counts.duplicates).toBe(0);
    const tokens = await dedup(writeVert(input), { ...opts, count: "tokens", normalize: "none" }, { inProcess: true });
    expect(tokens.report.counts.duplicates).toBe(1);
    expect(tokens.text).toBe(seen);
  });

  it("tokens: an n-gram that starts in the paragraph before covers only its tokens in this one", async () => {
    // "x a b" repeats and ends at the second paragraph's first token: 1 of its 4 tokens is covered.
    const input = v(...doc("1", ["x", "a", "b"]), ...doc("2", ["x", "a"], ["b", "q", "r", "s"]));
    const r = await dedup(writeVert(input), { ngram: 3, maxStub: -1, threshold: 0.3, count: "tokens", normalize: "none" }, { inProcess: true });
    expect(r.report.counts.duplicates).toBe(0);
    const lower = await dedup(writeVert(input), { ngram: 3, maxStub: -1, threshold: 0.2, count: "tokens", normalize: "none" }, { inProcess: true });
    expect(lower.report.counts.duplicates).toBe(1);
  });

  const sentences = (...ss: string[][]) => ["<p>", ...ss.flatMap((x) => ["<s>", ...x, "</s>"]), "</p>"];
  const docOf = (id: string, ...lines: string[]) => [`<doc id="${id}">`, ...lines, "</doc>"];

  it("boundary s: no n-gram crosses a sentence start or end", async () => {
    // "b c" occurs in document 1 only across two sentences.
    const input = v(...docOf("1", ...sentences(["a", "b"], ["c", "d"])), ...docOf("2", ...sentences(["b", "c"])));
    const opts = { ngram: 2, maxStub: -1, threshold: 0.4 };
    expect((await dedup(writeVert(input), { ...opts, boundary: "doc" }, { inProcess: true })).report.counts.duplicates).toBe(1);
    expect((await dedup(writeVert(input), { ...opts, boundary: "s" }, { inProcess: true })).report.counts.duplicates).toBe(0);
  });

  it("boundary s: a sentence shorter than n has no n-gram; its tokens still count", async () => {
    const short = sentences(...words("w", 12).map((w) => [w]), ["p", "q", "r"]);
    const input = v(...docOf("1", ...short), ...docOf("2", ...short));
    const opts = { ngram: 3, maxStub: -1 };
    const across = await dedup(writeVert(input), { ...opts, boundary: "doc" }, { inProcess: true });
    expect(across.report.counts.duplicates).toBe(1);
    // Only "p q r" is an n-gram: 1 repeated of 15 tokens (ngrams), 3 covered of 15 (tokens).
    for (const count of COUNT_RULES) {
      const bounded = await dedup(writeVert(input), { ...opts, boundary: "s", count, ...(count === "tokens" ? { normalize: "none" as const } : {}) }, { inProcess: true });
      expect(bounded.report.counts.duplicates).toBe(0);
      expect(bounded.text).toBe(input);
    }
    const low = await dedup(writeVert(input), { ...opts, boundary: "s", count: "tokens", normalize: "none", threshold: 0.19 }, { inProcess: true });
    expect(low.report.counts.duplicates).toBe(1);
  });

  it("in process and on the pool: byte-identical outputs and reports but the flag, removal mode, gz output", async () => {
    const path = writeVert(randomCorpus(8, 200), "gz");
    for (const rule of rules) {
      const local = await dedup(path, rule, { inProcess: true, out: "gz", chunkBytes: 1500 });
      const pooled = await dedup(path, rule, { inProcess: false, out: "gz", chunkBytes: 1500 });
      expect(pooled.text).toBe(local.text);
      expect({ ...pooled.report, output: "", phases: {}, inProcess: true }).toEqual({ ...local.report, output: "", phases: {} });
    }
  });

  it("the CLI passes --count and --boundary on (and refuses other values)", () => {
    const input = writeVert(randomCorpus(6, 40));
    const output = missingPath(".vert");
    const r = vertdup(["paragraphs", input, "-o", output, "--count", "tokens", "--boundary", "s", "--ngram", "3", "--mark", "--quiet"]);
    expect(r.status).toBe(0);
    expect(JSON.parse(readFileSync(`${output}.report.json`, "utf8")).options).toMatchObject({ count: "tokens", boundary: "s" });
    expect(readFileSync(output, "utf8")).toBe(referenceParagraphs(readFileSync(input, "utf8"), { ...DEFAULT_PARAGRAPH, count: "tokens", boundary: "s", ngram: 3, mark: true }));
    const bad = vertdup(["paragraphs", input, "-o", missingPath(".vert"), "--boundary", "p"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/Argument: boundary, Given: "p", Choices: "doc", "s"/);
  });

  it("in process below 16 MiB of text: plain files by size, compressed ones at 4×, never standard input", async () => {
    const sized = (bytes: number, kind: VertKind) => {
      const path = writeVert("", kind);
      truncateSync(path, bytes);
      return path;
    };
    expect(await smallInputs([sized(IN_PROCESS_BELOW - 1, "plain")])).toBe(true);
    expect(await smallInputs([sized(IN_PROCESS_BELOW, "plain")])).toBe(false);
    expect(await smallInputs([sized(IN_PROCESS_BELOW / 8, "plain"), sized(IN_PROCESS_BELOW / 8, "gz")])).toBe(true);
    expect(await smallInputs([sized(IN_PROCESS_BELOW / 4, "zst")])).toBe(false);
    expect(await smallInputs([sized(10, "plain"), "-"])).toBe(false);
  });

  it("chooses by size: a small input runs in process; the report records the options", async () => {
    const text = randomCorpus(4, 30);
    const output = missingPath(".vert");
    const report = await paragraphs([writeVert(text)], output, { ...DEFAULT_PARAGRAPH, count: "tokens", normalize: "none", boundary: "s" }, { workers: 2, chunkBytes: 1 << 20, quiet: true });
    expect(report.inProcess).toBe(true);
    expect(report.options).toMatchObject({ count: "tokens", boundary: "s" });
  });
});

describe("vertdup paragraphs: decisions", () => {
  const a = words("a", 30);
  const b = words("b", 30);
  const c = words("c", 30);

  it("removes a repeated paragraph and keeps the rest byte for byte", async () => {
    const input = v(...doc("1", a, b), ...doc("2", c, a));
    const { text, report } = await dedup(writeVert(input));
    expect(text).toBe(v(...doc("1", a, b), '<doc id="2">', "<p>", ...c, "</p>", "</doc>"));
    expect(report.counts).toMatchObject({ paragraphsIn: 4, paragraphsOut: 3, duplicates: 1, docsOut: 2 });
  });

  it("a document left without kept paragraphs goes with its tags; mark mode marks them 1", async () => {
    const input = v(...doc("1", a), ...doc("2", a));
    expect((await dedup(writeVert(input))).text).toBe(v(...doc("1", a)));
    const marked = (await dedup(writeVert(input), { mark: true })).text;
    expect(marked).toBe(v(...doc("1", a).map((l) => `0\t${l}`), ...doc("2", a).map((l) => `1\t${l}`)));
  });

  it("threshold is onion's strict > in single precision", async () => {
    // 10 tokens, n=1: 5 repeated → 0.5, not > 0.5; 9 repeated → 0.9 > fround(0.9).
    const half = [...words("a", 5), ...words("z", 5)];
    const nine = [...words("a", 9), "y"];
    const input = v(...doc("1", a), ...doc("2", half), ...doc("3", nine));
    const { report } = await dedup(writeVert(input), { ngram: 1, maxStub: -1 });
    expect(report.counts.duplicates).toBe(1);
    const { report: r9 } = await dedup(writeVert(input), { ngram: 1, maxStub: -1, threshold: 0.9 });
    expect(r9.counts.duplicates).toBe(1);
  });

  it("n-grams run across paragraphs of a document but not across documents", async () => {
    // "a0 a1 | a2" as one 3-gram across two paragraphs repeats only inside a document.
    const input = v(...doc("1", ["x", "a0", "a1"], ["a2", "q"]), ...doc("2", ["a0", "a1"], ["a2", "r"]));
    const { report } = await dedup(writeVert(input), { ngram: 3, threshold: 0.4, maxStub: -1 });
    expect(report.counts.duplicates).toBe(1);
    const isolated = v(...doc("1", ["x", "a0", "a1"], ["a2", "q"]), ...doc("2", ["a0", "a1"]), ...doc("3", ["a2", "r"]));
    expect((await dedup(writeVert(isolated), { ngram: 3, threshold: 0.4, maxStub: -1 })).report.counts.duplicates).toBe(0);
  });

  it("smoothing: a stub between two duplicates goes, between kept paragraphs it stays", async () => {
    const stub = ["short", "stub"];
    const first = v(...doc("1", a, b, c));
    const between = await dedup(writeVert(first + v(...doc("2", words("n", 30), a, stub, b, words("m", 30)))));
    expect(between.text).not.toContain("short");
    expect(between.report.counts.stubs).toBe(1);
    const kept = await dedup(writeVert(first + v(...doc("2", words("n", 30), stub, words("m", 30)))));
    expect(kept.text).toContain("short");
    const off = await dedup(writeVert(first + v(...doc("2", words("n", 30), a, stub, b, words("m", 30)))), { maxStub: -1 });
    expect(off.text).toContain("short");
  });

  it("smoothing counts the tokens of a whole run, and document edges act as duplicates (onion)", async () => {
    const first = v(...doc("1", a, b));
    const run = await dedup(writeVert(first + v(...doc("2", a, words("s", 12), words("t", 12), b, words("m", 30)))));
    expect(run.text).toContain("s0"); // 24 tokens > 20: the run stays
    const edge = await dedup(writeVert(first + v(...doc("2", ["lead", "in"], a, words("m", 30)))));
    expect(edge.text).not.toContain("lead");
    const tiny = await dedup(writeVert(first + v(...doc("2", ["a", "tiny", "document"]))), { maxStub: 20 });
    expect(tiny.text).toBe(first);
  });

  it("keeps lines outside documents and tagged lines; adds a missing final newline", async () => {
    const input = `<corpus>\n<doc id="1">\n<p>\nx\tN\ty\n</p>\n</doc>\n</corpus>`;
    const { text, report } = await dedup(writeVert(input), { maxStub: -1 });
    expect(text).toBe(`${input}\n`);
    expect(report.warnings.tagOutsideDoc).toBe(2);
  });
});

describe("vertdup paragraphs: files", () => {
  it("reads and writes .gz and .zst", async () => {
    const text = randomCorpus(11, 60);
    const expected = referenceParagraphs(text, DEFAULT_PARAGRAPH);
    for (const [inKind, outKind] of [["gz", "zst"], ["zst", "gz"], ["plain", "zst"]] as const) {
      const r = await dedup(writeVert(text, inKind), {}, { out: outKind, chunkBytes: 2000 });
      expect(r.text).toBe(expected);
    }
  });

  const bad: [string, string, RegExp][] = [
    ["token outside a document", "x\n<doc>\ny\n</doc>\n", /:1: token outside <doc>/],
    ["unclosed document", "<doc>\n<p>\ny\n", /:1: <doc> is never closed/],
    ["nested document", "<doc>\ny\n<doc>\nz\n</doc>\n</doc>\n", /:3: <doc> inside the <doc> opened at line 1/],
    ["stray </doc>", "<doc>\ny\n</doc>\n</doc>\n", /:4: <\/doc> without an open <doc>/],
    ["CRLF", "<doc>\r\ny\r\n</doc>\r\n", /:1: CRLF line end/],
    ["invalid UTF-8", "<doc>\ny\n\xff\n</doc>\n", /:3: invalid UTF-8/],
    ["a <doc line without its > inside a document", '<doc>\ny\n<doc id="b"\nz\n</doc>\n', /:3: <doc line without its closing ">"/],
  ];
  for (const [name, content, message] of bad) {
    it(`fails on ${name} with file:line`, async () => {
      const bytes = Buffer.from(content, "latin1");
      await expect(dedup(writeVert(bytes))).rejects.toThrow(message);
    });
  }

  it("names the line in its file when the bad line is in a later chunk or a later file", async () => {
    const good = randomCorpus(9, 30);
    const next = good.split("\n").length;
    const crlf = `${good}<doc>\r\nx\r\n</doc>\r\n`;
    for (const kind of ["plain", "gz"] as const) {
      await expect(dedup(writeVert(crlf, kind), {}, { chunkBytes: 300 })).rejects.toThrow(new RegExp(`:${next}: CRLF line end`));
    }
    const second = writeVert(crlf);
    await expect(dedup([writeVert(good), second], {}, { chunkBytes: 300 })).rejects.toThrow(`${second}:${next}: CRLF line end`);
    const nested = `${good}<doc>\nx\n<doc>\ny\n</doc>\n</doc>\n`;
    await expect(dedup(writeVert(nested), {}, { chunkBytes: 300 })).rejects.toThrow(`:${next + 2}: <doc> inside the <doc> opened at line ${next}`);
  });

  it("fails on a truncated .gz, a missing input and an empty corpus; leaves no output", async () => {
    const gz = readFileSync(writeVert(randomCorpus(3, 50), "gz"));
    const truncated = writeVert(Buffer.alloc(0), "plain", "t");
    const { writeFileSync } = await import("node:fs");
    const path = truncated.replace(/\.vert$/, ".vert.gz");
    writeFileSync(path, gz.subarray(0, gz.length - 40));
    await expect(dedup(path)).rejects.toThrow(/gzip stream is truncated or corrupt/);
    await expect(dedup(missingPath())).rejects.toThrow(/cannot read input file/);
    await expect(dedup(truncated)).rejects.toThrow(/input is empty/);
    await expect(dedup(writeVert("<meta/>\n"))).rejects.toThrow(/no documents/);
  });
});

describe("--partition-attr (issue 30 item 5)", () => {
  /** Each document's marked lines (from its <doc> to its </doc>), by id. */
  const blocks = (marked: string) => {
    const out = new Map<string, string[]>();
    let open: string[] | null = null;
    for (const line of marked.split("\n")) {
      const id = /^[01]\t<doc id="([^"]*)"/.exec(line)?.[1];
      if (id !== undefined) out.set(id, (open = []));
      open?.push(line);
      if (line.endsWith("\t</doc>")) open = null;
    }
    return out;
  };

  it("marks each document as a run over its partition's documents alone does, whatever --count (the empty value for a document without it)", async () => {
    const langs = ["de", "fr", undefined];
    const docLines = randomCorpus(7, 60)
      .split("\n")
      .map((line) => line.replace(/^<doc id="d(\d+)"/, (tag, d: string) => (langs[Number(d) % 3] === undefined ? tag : `${tag} lang="${langs[Number(d) % 3]}"`)));
    const corpus = docLines.join("\n");
    const input = writeVert(corpus);
    const of = (lang: string | undefined) => {
      const kept: string[] = [];
      let take = false;
      for (const line of docLines) {
        if (line.startsWith("<doc ")) take = lang === undefined ? !line.includes(" lang=") : line.includes(` lang="${lang}"`);
        if (take) kept.push(line);
        if (line === "</doc>") take = false;
      }
      return writeVert(`${kept.join("\n")}\n`);
    };
    for (const count of COUNT_RULES) {
      const opts = { mark: true, count, ...(count === "tokens" ? { normalize: "none" as const } : {}) };
      const whole = blocks((await dedup(input, { ...opts, partitionAttr: "lang" })).text);
      const apart = new Map<string, string[]>();
      for (const lang of langs) for (const [id, lines] of blocks((await dedup(of(lang), opts)).text)) apart.set(id, lines);
      expect(whole.size, count).toBe(60);
      expect(whole, count).toEqual(apart);
      // Without the option the partitions see each other's text: the marks differ.
      expect(blocks((await dedup(input, opts)).text), count).not.toEqual(apart);
    }
  });

  it("records the attribute in the index: --against with another is refused", async () => {
    const input = writeVert(v(...doc("a", words("x", 30))).replace('<doc id="a">', '<doc id="a" lang="de">'));
    const index = missingPath("index");
    await paragraphs([input], missingPath("o.vert"), { ...DEFAULT_PARAGRAPH, partitionAttr: "lang" }, { workers: 1, chunkBytes: 1 << 20, quiet: true }, { workdir: index });
    await expect(paragraphs([input], missingPath("p.vert"), { ...DEFAULT_PARAGRAPH }, { workers: 1, chunkBytes: 1 << 20, quiet: true }, { against: [index] })).rejects.toThrow(/--partition-attr/);
  });
});
