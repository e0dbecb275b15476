import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { readTsv, removeTempDirs, tempDir, vertdupAsync as vertdup } from "../helpers/cli.js";
import { writeReport } from "../../src/report/write-report.js";

afterAll(removeTempDirs);

const CORPUS = "data-samples/sample.vert.gz";
const FAST = ["--iterations", "20", "--quiet"];

const report = (dir: string) => readFileSync(join(dir, "report.html"), "utf8");
/** The report without its #timings section, the only part that varies between runs. */
const stable = (html: string) => html.replace(/<section id="timings">[\s\S]*?<\/section>/, "");
const sampled = (html: string) => Number(/<section id="sample" data-pairs="(\d+)"/.exec(html)?.[1]);

async function run(args: string[]): Promise<string> {
  const out = tempDir();
  const r = await vertdup(["run", ...args, "-o", out]);
  expect(r.status, r.stderr).toBe(0);
  return out;
}

describe("report.html of vertdup run", () => {
  it("is the same whatever --workers and --chunk-size, but for its timings", async () => {
    const one = report(await run([CORPUS, ...FAST, "--workers", "1"]));
    const two = report(await run([CORPUS, ...FAST, "--workers", "2", "--chunk-size", "65536"]));
    expect(one).toContain('<section id="timings">');
    expect(stable(one)).not.toContain("seconds");
    expect(stable(two)).toBe(stable(one));
    expect(sampled(one)).toBe(20);
    // Every sampled pair shows both texts.
    expect(one.match(/<div class="pair link">/g)).toHaveLength(20);
    expect(one).not.toContain("text not shown");
  }, 120_000);

  it("is written by every method, and not with --no-report", async () => {
    const methods = ["minhash", "paragraphs", "simhash384", "exact"];
    const outs = await Promise.all(methods.map((method) => run([CORPUS, "--quiet", "--workers", "1", "--method", method])));
    methods.forEach((method, k) => {
      const html = report(outs[k]);
      expect(html).toContain(`<h1>vertdup run: ${method}</h1>`);
      expect(sampled(html)).toBe(Math.min(20, readTsv(join(outs[k], "pairs.tsv")).length));
    });
    const out = await run([CORPUS, ...FAST, "--no-report"]);
    expect(existsSync(join(out, "pairs.tsv"))).toBe(true);
    expect(existsSync(join(out, "report.html"))).toBe(false);
  }, 180_000);

  it("shows the calibration table of the run's calibration.tsv, and not one its manifest does not record (#31 item 5)", async () => {
    const out = tempDir();
    writeFileSync(
      join(out, "calibration.tsv"),
      "threshold\trecall\trecall_low\trecall_high\tprecision\tprecision_low\tprecision_high\n0.85\t0.99\t0.98\t1\t0.9\t0.88\t0.92\n0.9\t0.97\t0.95\t0.98\t0.95\t0.93\t0.97\n1.00\t\t0\t1\t0.95\t0.93\t0.97\n",
    );
    const table = readFileSync(join(out, "calibration.tsv"));
    expect((await vertdup(["run", CORPUS, "--quiet", "-o", out, "--method", "exact"])).status).toBe(0);
    // An earlier run's calibration.tsv: removed, not shown.
    expect(existsSync(join(out, "calibration.tsv"))).toBe(false);
    expect(report(out)).not.toContain('id="calibration"');
    // The run's own (its manifest records a calibration): shown.
    writeFileSync(join(out, "calibration.tsv"), table);
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(out, "manifest.json"), JSON.stringify({ ...manifest, calibration: {} }));
    await writeReport(out, { seed: 1, warn: () => undefined });
    const html = report(out);
    expect(html).toMatch(/<section id="calibration">[\s\S]*<svg[\s\S]*<td class="n">0\.8500<\/td><td class="n">0\.9900<\/td><td class="n">0\.9800–1\.0000<\/td>/);
    // A threshold without reference pairs (an empty recall) is shown as unknown, not as an error.
    expect(html).toMatch(/<td class="n">1\.0000<\/td><td class="n">–<\/td>/);
    expect(html).not.toContain("NaN");
    expect(report(await run([CORPUS, "--quiet", "--method", "exact"]))).not.toContain('id="calibration"');
  });

  it("says why the texts are missing when the corpus came from standard input", async () => {
    const r = await vertdup(["run", "-", "--quiet", "--method", "exact", "-o", tempDir()], gunzipSync(readFileSync(CORPUS)));
    expect(r.status, r.stderr).toBe(0);
    const out = /pairs: (\S+)\/pairs\.tsv/.exec(r.stdout)?.[1] ?? "";
    const html = report(out);
    expect(html).toContain("Texts not shown: the corpus was read from standard input and cannot be read again");
    expect(html).not.toContain('<div class="docs">');
  });

  it("shows where two long documents differ past their 200th token, and samples identical groups as well as pairs", async () => {
    const words = Array.from({ length: 900 }, (_, k) => `w${k}`);
    const copy = (id: string, tokens: string[]) => `<doc id="${id}">\n${tokens.join("\n")}\n</doc>\n`;
    const dir = tempDir();
    const corpus = join(dir, "long.vert");
    // long-a and long-b differ in their 700th token only; same-1 … same-3 are exact copies.
    const same = Array.from({ length: 30 }, (_, k) => `s${k}`);
    writeFileSync(corpus, copy("long-a", words) + copy("long-b", words.map((w, k) => (k === 700 ? "CHANGED" : w))) + copy("same-1", same) + copy("same-2", same) + copy("same-3", same));
    const html = report(await run([corpus, "--quiet", "--method", "minhash", "--shingle-size", "1"]));
    const link = html.match(/<div class="pair link">[\s\S]*?(?=<div class="pair|<\/section>)/g) ?? [];
    expect(link).toHaveLength(1);
    expect(link[0]).toContain("<mark>CHANGED</mark>");
    expect(link[0]).toContain("<mark>w700</mark>");
    // A window of context, then the whole pair on demand.
    expect(link[0]).toMatch(/… 688 tokens the same at the start …/);
    expect(link[0]).toContain("<details><summary>the whole pair</summary>");
    const group = html.match(/<div class="pair group">[\s\S]*?(?=<div class="pair|<\/section>)/g) ?? [];
    expect(group).toHaveLength(1);
    expect(group[0]).toContain("3 identical documents");
    expect(group[0]).toContain("same-1");
    expect(group[0]).toContain("The 30 tokens compared are the same in both.");
  });

  it("stays small whatever the documents hold: tokens, ids and lists are cut", async () => {
    // 40 pairs of documents with 300 tokens of 2,000 characters and ids of 5,000, all `&` (5 bytes escaped): 48 MB of text.
    const token = (d: number, t: number) => `${"&".repeat(1990)}${String(d * 1000 + t).padStart(10, "0")}`;
    const doc = (d: number, copy: number) => `<doc id="${"&amp;".repeat(1000)}${d}-${copy}">\n${Array.from({ length: 300 }, (_, t) => token(d, t === 7 && copy === 1 ? 999 : t)).join("\n")}\n</doc>\n`;
    const dir = tempDir();
    const corpus = join(dir, "big.vert");
    writeFileSync(corpus, Array.from({ length: 40 }, (_, d) => doc(d, 0) + doc(d, 1)).join(""));
    const out = await run([corpus, "--quiet", "--method", "minhash", "--shingle-size", "1"]);
    expect(sampled(report(out))).toBe(20);
    expect(statSync(join(out, "report.html")).size).toBeLessThan(5_000_000);
  });
});
