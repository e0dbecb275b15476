import { spawnSync } from "node:child_process";
import { appendFileSync, readFileSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeBatches } from "../helpers/batches.js";
import { CLI, readTsv, removeTempDirs, tempDir, vertdupAsync } from "../helpers/cli.js";

afterAll(removeTempDirs);

const report = (dir: string) => readFileSync(join(dir, "report.html"), "utf8");
const sampled = (html: string) => Number(/<section id="sample" data-pairs="(\d+)"/.exec(html)?.[1]);

async function ok(args: string[]): Promise<string> {
  const r = await vertdupAsync(args);
  expect(r.status, r.stderr).toBe(0);
  return r.stderr;
}

/** Pairs of pairs.tsv (with --against) joining an old document and a new one. */
const oldNewPairs = (out: string) => readTsv(join(out, "pairs.tsv")).filter((f) => (f[1] === "") !== (f[3] === ""));

describe("report.html of a run with --against", () => {
  const methods: [string, string[]][] = [
    ["exact", []],
    ["minhash", []],
    ["simhash384", []],
    ["paragraphs", []],
    ["lsh-cosine", ["--weighting", "tf", "--iterations", "20"]],
  ];

  it.each(methods)("--method %s: clusters with a new document, the old documents named by index and shown, read from the index's recorded inputs", async (method, extra) => {
    const dir = tempDir();
    const [base, batch] = writeBatches(dir, [60, 30]);
    const index = join(dir, "base.idx");
    const opts = ["--method", method, "--quiet", "--workers", "1", ...extra];
    // The base run's working directory is not this one: its inputs are recorded as given (relative).
    const made = spawnSync(process.execPath, [CLI, "run", "batch0.vert", "-w", "base.idx", "-o", "out0", ...opts], { cwd: dir, encoding: "utf8" });
    expect(made.status, made.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(index, "index.json"), "utf8")).batches[0].inputs).toEqual(["batch0.vert"]);
    const out = join(dir, "out1");
    expect(await ok(["run", batch, "-o", out, "--against", index, ...opts])).not.toContain("warning");
    expect(JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")).against).toEqual([{ index, documents: 60 }]);
    const html = report(out);
    expect(html).toContain(`<h1>vertdup run: ${method}</h1>`);
    expect(html).toContain("clusters with a new document");
    expect(sampled(html)).toBe(Math.min(20, readTsv(join(out, "pairs.tsv")).length));
    // Every sampled pair shows both texts: each document was found at its place in its source under its id.
    expect(html.match(/<div class="pair link">/g) ?? []).toHaveLength(sampled(html));
    expect(html).not.toContain("text not shown");
    expect(html).not.toContain("Texts not shown");
    const idx = index.replace(/[.]/g, "\\.");
    // With --keep older the largest clusters' representatives are old documents, named by their position in the index, their beginning shown.
    expect(html).toMatch(new RegExp(`<td><code>b0d\\d+</code> <span class="note">#\\d+ of ${idx}</span></td><td>[^<]*<code>b[01]d\\d+</code>.*?</td><td class="doc">w\\d+ w\\d+`));
    // The planted copies cross batches: a sampled pair names an old document by its index and shows it beside the new one
    // (exact has no pairs: its clusters are groups of identical documents; simhash384 at 5 bits pairs no edited copy).
    if (method !== "exact" && method !== "simhash384") {
      expect(oldNewPairs(out).length).toBeGreaterThan(0);
      expect(html).toMatch(new RegExp(`<code>b0d\\d+</code> <span class="note">\\(${idx}\\)</span>`));
      expect(html).toMatch(new RegExp(`#\\d+ of ${idx}, \\d+ tokens`));
      expect(html).toMatch(/new #\d+, \d+ tokens/);
    }
    expect(base).toBe(join(dir, "batch0.vert"));
  }, 120_000);

  it("an index whose recorded input is gone: the run succeeds, the old texts are not shown and the report says why", async () => {
    const dir = tempDir();
    const [base, batch] = writeBatches(dir, [60, 30]);
    const index = join(dir, "base.idx");
    const opts = ["--method", "minhash", "--quiet", "--workers", "1"];
    await ok(["run", base, "-w", index, "-o", join(dir, "out0"), ...opts]);
    renameSync(base, join(dir, "moved.vert"));
    const out = join(dir, "out1");
    const stderr = await ok(["run", batch, "-o", out, "--against", index, "--update", ...opts]);
    expect(stderr).toContain(`warning: report.html: document texts not shown: batch 0 of ${index}: ${base} is gone (moved or removed since the batch was added)`);
    const html = report(out);
    expect(html).toContain(`Texts not shown: batch 0 of ${index}: ${base} is gone (moved or removed since the batch was added)`);
    // The new documents' texts are still shown, beside the note for the old one.
    expect(html).toMatch(/text not shown \(batch 0 of \S+: \S+ is gone \(moved or removed since the batch was added\)\)<\/div><\/div><div class="doc"><div class="note">new #\d+, \d+ tokens/);
    expect(statSync(join(out, "report.html")).size).toBeLessThan(5_000_000);
    // The updated index records batch 1: a later batch's old documents come from both batches' inputs.
    renameSync(join(dir, "moved.vert"), base);
    const [, , batch2] = writeBatches(dir, [60, 30, 30], 7, ["x0.vert", "x1.vert", "batch2.vert"]);
    const out2 = join(dir, "out2");
    expect(await ok(["run", batch2, "-o", out2, "--against", index, ...opts])).not.toContain("warning");
    const html2 = report(out2);
    expect(html2).not.toContain("text not shown");
    const sources = new Set(readTsv(join(out2, "clusters.tsv")).map((f) => (f[1] === "" ? "new" : Number(f[2]) > 60 ? "batch 1" : "batch 0")));
    expect(sources).toEqual(new Set(["new", "batch 0", "batch 1"]));
    // An input that changed since its batch was added: noted (its size), not read as if it were the same.
    appendFileSync(base, '<doc id="late">\n<p>\nw1\n</p>\n</doc>\n');
    const out3 = join(dir, "out3");
    expect(await ok(["run", batch2, "-o", out3, "--against", index, ...opts])).toMatch(new RegExp(`warning: report.html: document texts not shown: batch 0 of \\S+: \\S+batch0.vert changed since the batch was added \\(\\d+ bytes, \\d+ then\\)`));
    expect(report(out3)).toMatch(/#\d+ of \S+: text not shown \(batch 0 of \S+: \S+ changed since the batch was added/);
  }, 120_000);
});
