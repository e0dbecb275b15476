import { afterAll, describe, expect, it, vi } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { decompress } from "zstd-napi";
import { cleanCorpus } from "../../src/clean/clean-corpus.js";
import { DocFilter } from "../../src/clean/doc-filter.js";
import { remarkDocLine } from "../../src/clean/doc-marks.js";
import { CLUSTERS_HEADER } from "../../src/output/clusters-tsv.js";
import { EdgeList } from "../../src/clusters/duplicate-graph.js";
import { DocIds } from "../../src/output/doc-ids.js";
import { writeGraphOutputs } from "../../src/output/graph-outputs.js";
import { VertdupError } from "../../src/core/errors.js";
import { FEATURES } from "../methods/features.js";
import { cleanupVerts, suffixOf, writeRaw, writeVert, type VertKind } from "../helpers/vert.js";
import { runSetMethod } from "../helpers/set-method.js";

const dir = mkdtempSync(join(tmpdir(), "vertdup-clean-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  cleanupVerts();
});
const KINDS: VertKind[] = ["plain", "gz", "zst"];

/** Bytes a corpus file of its kind decompresses to. */
function content(path: string): Buffer {
  const raw = readFileSync(path);
  return path.endsWith(".gz") ? gunzipSync(raw) : path.endsWith(".zst") ? Buffer.from(decompress(raw)) : raw;
}

/** Strips clean --mark's attributes from every `<doc` line. */
function unmark(b: Buffer): Buffer {
  const lines = b.toString("latin1").split("\n");
  const plain = lines.map((l) => {
    const at = l.startsWith("\xef\xbb\xbf<doc") ? 3 : 0;
    if (!l.startsWith("<doc", at)) return l;
    return l.slice(0, at) + (remarkDocLine(Buffer.from(l.slice(at), "latin1"), "")?.toString("latin1") ?? l.slice(at));
  });
  return Buffer.from(plain.join("\n"), "latin1");
}

// Irregular but valid: a BOM, a tag and empty lines outside documents, `>` inside an
// attribute, `<document>` as a token-like line, a doc without id, no final line end.
const CORPUS =
  '\ufeff<doc id="a" title="x > y">\n<p>\nJedna\n</p>\n</doc>\n<note/>\n\n' +
  '<doc id="b">\n<document>\nDvě\n<g/>\n.\n</doc>\n' +
  "<doc\ttype='c'>\ntři\n</doc>\n" +
  '<doc id="d">\nčtyři\n</doc >\n' +
  '<doc id="e">\npět\n</doc>';

function fromDir(rows: string[], name: string, idAttr = "id"): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, "clusters.tsv"), CLUSTERS_HEADER + rows.map((r) => r + "\n").join(""));
  writeFileSync(join(d, "manifest.json"), JSON.stringify({ prepare: { idAttr } }));
  return d;
}

// Cluster 1: a (representative) and 3 (no id: named by its ordinal); cluster 2: e keeps, b and d go.
const ROWS = ["a\t1\t1\t1\ta\t-", "b\t2\t2\t0\te\t0.9000", "3\t3\t1\t0\ta\t0.9731", "d\t4\t2\t0\te\t0.8500", "e\t5\t2\t1\te\t-"];

describe("clean", () => {
  it("removes non-representatives and keeps every other byte, for every input and output kind", async () => {
    const from = fromDir(ROWS, "basic");
    for (const inKind of KINDS) {
      for (const outKind of KINDS) {
        const input = writeVert(CORPUS, inKind);
        const output = join(dir, `removed-${inKind}${suffixOf(outKind)}`);
        const stats = await cleanCorpus([input], { from, output, mark: false });
        expect(stats).toEqual({ documents: 5, removed: 3, marked: 0 });
        expect(content(output).toString("utf8")).toBe('\ufeff<doc id="a" title="x > y">\n<p>\nJedna\n</p>\n</doc>\n<note/>\n\n<doc id="e">\npět\n</doc>');
      }
    }
  });

  it("--mark adds dup attributes; stripping them gives the input byte for byte (.vert, .gz, .zst)", async () => {
    const from = fromDir(ROWS, "mark");
    for (const kind of KINDS) {
      const input = writeVert(CORPUS, kind);
      const output = join(dir, `marked${suffixOf(kind)}`);
      expect(await cleanCorpus([input], { from, output, mark: true })).toEqual({ documents: 5, removed: 0, marked: 5 });
      const marked = content(output);
      expect(marked.toString("utf8")).toContain('<doc id="b" dup_of="e" dup_sim="0.9000" dup_cluster="2">\n');
      expect(marked.toString("utf8")).toContain("<doc\ttype='c' dup_of=\"a\" dup_sim=\"0.9731\" dup_cluster=\"1\">\n");
      expect(marked.toString("utf8")).toContain('\ufeff<doc id="a" title="x > y" dup_cluster="1">\n');
      expect(unmark(marked).equals(content(input))).toBe(true);
    }
  });

  it("--mark names, in a chain a–b–c, the document c was verified similar to (b), their cosine and its measure", async () => {
    const out = join(dir, "chain");
    mkdirSync(out, { recursive: true });
    const edges = new EdgeList();
    edges.push(0, 1, 0.93);
    edges.push(1, 2, 0.91);
    const graph = { documents: 3, firstOf: Uint32Array.from([0, 1, 2]), edges, cosines: Float64Array.from([0.97, 0.955]) };
    await writeGraphOutputs(out, graph, DocIds.fromLists([["a", "b", "c"]]), [9, 1, 1], { keep: "longest", pairs: { mode: "edges", limit: 0 } });
    writeFileSync(join(out, "manifest.json"), JSON.stringify({ method: "lsh-cosine", prepare: { idAttr: "id" }, pleb: { cosineThreshold: 0.95 } }));
    const input = writeVert('<doc id="a">\nx\n</doc>\n<doc id="b">\ny\n</doc>\n<doc id="c">\nz\n</doc>\n', "plain");
    const output = join(dir, "chain.vert");
    await cleanCorpus([input], { from: out, output, mark: true });
    expect(readFileSync(output, "utf8").split("\n").filter((l) => l.startsWith("<doc"))).toEqual([
      '<doc id="a" dup_cluster="1">',
      '<doc id="b" dup_of="a" dup_sim="0.9700" dup_measure="cosine" dup_cluster="1">',
      '<doc id="c" dup_of="b" dup_sim="0.9550" dup_measure="cosine" dup_cluster="1">',
    ]);
  });

  it("--mark on a marked corpus replaces the marks: no attribute twice, stale ones removed", async () => {
    const marked = join(dir, "once.vert");
    await cleanCorpus([writeVert(CORPUS, "plain")], { from: fromDir(ROWS, "once"), output: marked, mark: true });
    const twice = join(dir, "twice.vert.gz");
    expect(await cleanCorpus([marked], { from: fromDir(ROWS, "once"), output: twice, mark: true })).toEqual({ documents: 5, removed: 0, marked: 5 });
    expect(content(twice).equals(readFileSync(marked))).toBe(true);
    // A later run: b and d are no longer duplicates, a joins e's cluster as a member.
    const later = fromDir(["a\t1\t7\t0\te\t0.9100", "3\t3\t8\t1\t3\t-", "e\t5\t7\t1\te\t-", "x\t6\t8\t0\t3\t0.8000"], "later");
    const remarked = join(dir, "remarked.vert");
    const extra = '<doc id="x" dup_cluster="1" dup_of=\'old\' note="dup_of=&quot;q&quot;">\nšest\n</doc>\n';
    expect(await cleanCorpus([writeRaw(Buffer.concat([readFileSync(marked), Buffer.from("\n" + extra)]), "m.vert")], { from: later, output: remarked, mark: true })).toEqual({ documents: 6, removed: 0, marked: 4 });
    const lines = readFileSync(remarked, "utf8").split("\n").filter((l) => /^\ufeff?<doc\s/.test(l));
    expect(lines).toEqual([
      '\ufeff<doc id="a" title="x > y" dup_of="e" dup_sim="0.9100" dup_cluster="7">',
      '<doc id="b">',
      "<doc\ttype='c' dup_cluster=\"8\">",
      '<doc id="d">',
      '<doc id="e" dup_cluster="7">',
      '<doc id="x" note="dup_of=&quot;q&quot;" dup_of="3" dup_sim="0.8000" dup_cluster="8">',
    ]);
    expect(unmark(readFileSync(remarked)).toString("utf8")).toBe(CORPUS + "\n" + extra.replace(' dup_cluster="1" dup_of=\'old\'', ""));
  });

  it("--mark leaves invalid UTF-8 and every byte outside the marks as they were", async () => {
    const bytes = Buffer.concat([Buffer.from('<doc id="a" t="'), Buffer.from([0xff, 0xc3]), Buffer.from('" dup_sim="0.5">\nx\n</doc>\n<doc id="b">\ny\n</doc>\n')]);
    const output = join(dir, "bytes.vert");
    await cleanCorpus([writeRaw(bytes, "bytes.vert")], { from: fromDir(["a\t1\t1\t1\ta\t-", "b\t2\t1\t0\ta\t1.0000"], "bytes"), output, mark: true });
    const expected = Buffer.concat([Buffer.from('<doc id="a" t="'), Buffer.from([0xff, 0xc3]), Buffer.from('" dup_cluster="1">\nx\n</doc>\n<doc id="b" dup_of="a" dup_sim="1.0000" dup_cluster="1">\ny\n</doc>\n')]);
    expect(readFileSync(output).equals(expected)).toBe(true);
  });

  it("round-trips a real run over several inputs: removal drops exactly the duplicates", async () => {
    const text = content("data-samples/sample.vert.gz").toString("utf8");
    const cut = text.indexOf("<doc", text.length / 2);
    const parts = [writeVert(text.slice(0, cut), "gz"), writeVert(text.slice(cut), "zst")];
    const out = join(dir, "run");
    const m = await runSetMethod(parts, join(dir, "run-work"), out, { method: "exact", features: FEATURES, search: { threshold: 0.8, maxDistance: 5, memory: 1 << 30 }, keep: "first" }, { workers: 2 });
    const marked = join(dir, "sample-marked.vert.zst");
    await cleanCorpus(parts, { from: out, output: marked, mark: true });
    expect(unmark(content(marked)).toString("utf8")).toBe(text);
    const removed = join(dir, "sample-clean.vert");
    const stats = await cleanCorpus(parts, { from: out, output: removed, mark: false });
    expect(stats.removed).toBe(m.clusters.duplicates);
    const docs = content(removed).toString("utf8").match(/^<doc /gm)?.length;
    expect(docs).toBe(500 - m.clusters.duplicates);
  });

  it("matches ids that hold a tab or a backslash through the escaped clusters.tsv", async () => {
    const raw = ["t\tab", "b\\s", "plain"];
    const corpus = raw.map((id, k) => `<doc id="${id}">\nw${k % 2}\n</doc>\n`).join("");
    const out = join(dir, "escaped");
    mkdirSync(out);
    const edges = new EdgeList();
    edges.push(0, 1, 0.95);
    const graph = { documents: 3, firstOf: Uint32Array.from([0, 1, 2]), edges };
    await writeGraphOutputs(out, graph, DocIds.fromLists([raw]), [1, 5, 1], { keep: "longest", pairs: { mode: "edges", limit: 0 } });
    expect(readFileSync(join(out, "clusters.tsv"), "utf8")).toContain("t\\tab\t1\t1\t0\tb\\\\s\t0.9500\n");
    const input = writeVert(corpus, "plain");
    const marked = join(dir, "escaped-marked.vert");
    await cleanCorpus([input], { from: out, output: marked, mark: true });
    expect(readFileSync(marked, "utf8")).toContain('<doc id="t\tab" dup_of="b\\s" dup_sim="0.9500" dup_cluster="1">');
    const removed = join(dir, "escaped-clean.vert");
    expect(await cleanCorpus([input], { from: out, output: removed, mark: false })).toEqual({ documents: 3, removed: 1, marked: 0 });
    expect(readFileSync(removed, "utf8")).toBe('<doc id="b\\s">\nw1\n</doc>\n<doc id="plain">\nw0\n</doc>\n');
  });

  describe("bad input", () => {
    const from = fromDir(ROWS, "bad");
    const fails = async (text: string | Buffer, pattern: RegExp, name?: string) => {
      const input = Buffer.isBuffer(text) ? writeRaw(text, name ?? "x.vert") : writeVert(text, "plain");
      const output = join(dir, "never.vert");
      await expect(cleanCorpus([input], { from, output, mark: false })).rejects.toThrow(pattern);
      expect(() => readFileSync(output)).toThrow();
    };

    it("names file and line of structural errors", async () => {
      await fails('<doc id="a">\nx\n<doc id="b">\n</doc>\n', /\.vert:3: <doc> inside the <doc> opened at line 1/);
      await fails('<doc id="a">\nx\n</doc>\n</doc>\n', /:4: <\/doc> without an open <doc>/);
      await fails('<doc id="a">\nx\n', /:1: <doc> is never closed/);
    });

    it("refuses what the reader refuses without --mark too: CRLF line ends, a <doc line without its >", async () => {
      await fails(CORPUS.replace(/\n/g, "\r\n"), /:1: CRLF line end/);
      await fails(CORPUS.replace("</doc>\n", "</doc>\r\n"), /\.vert:5: CRLF line end/);
      await fails(CORPUS.replace('<doc id="b">', '<doc id="b"'), /\.vert:8: <doc line without its closing ">"/);
    });

    it("refuses a corpus other than the run's (ids or document count differ)", async () => {
      await fails(CORPUS.replace('id="d"', 'id="z"'), /:17: document 4 is "z" but clusters.tsv names "d"/);
      await fails('<doc id="a">\nx\n</doc>\n<doc id="b">\n</doc>\n', /2 documents, but clusters.tsv names document 5/);
    });

    it("reports a fault of its own as such, not as the input's read error", async () => {
      const fault = vi.spyOn(DocFilter.prototype, "push").mockImplementation(() => {
        throw new TypeError("a fault");
      });
      try {
        const output = join(dir, "fault.vert");
        const result = cleanCorpus([writeVert(CORPUS, "gz")], { from, output, mark: false });
        await expect(result).rejects.toThrow(TypeError);
        await expect(result).rejects.not.toThrow(VertdupError);
        expect(existsSync(output)).toBe(false);
      } finally {
        fault.mockRestore();
      }
    });

    it("reports a truncated .gz, a missing clusters.tsv and an output that is an input", async () => {
      const gz = gzipSync(Buffer.from(CORPUS));
      await fails(gz.subarray(0, gz.length - 12), /x\.vert\.gz: gzip stream is truncated or corrupt/, "x.vert.gz");
      const input = writeVert(CORPUS, "plain");
      await expect(cleanCorpus([input], { from: join(dir, "nowhere"), output: join(dir, "o.vert"), mark: false })).rejects.toThrow(/clusters.tsv: cannot read/);
      await expect(cleanCorpus([input], { from, output: input, mark: false })).rejects.toThrow(VertdupError);
    });
  });
});
