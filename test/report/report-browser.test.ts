/// <reference lib="dom" />
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import puppeteer, { type Page } from "puppeteer-core";
import { afterAll, describe, expect, it } from "vitest";
import { kishEffectiveSize, STRATUM_NAMES } from "../../src/eval/stratified-sample.js";
import { writeBatches } from "../helpers/batches.js";
import { readTsv, removeTempDirs, tempDir, vertdupAsync } from "../helpers/cli.js";

afterAll(removeTempDirs);

/** Debian's chromium (.ci/run installs it); VERTDUP_CHROMIUM names another. */
const CHROMIUM = process.env.VERTDUP_CHROMIUM ?? "/usr/bin/chromium";
/** Where the screenshot goes (kept after the test, ignored by git). */
const SHOTS = resolve("test/output");

const reason = existsSync(CHROMIUM) ? null : `${CHROMIUM} is not installed (apt-get install chromium, or set VERTDUP_CHROMIUM)`;
if (reason !== null) console.warn(`report.html browser test skipped: ${reason}`);

/**
 * Runs `body` on a page of headless chromium, with what went wrong there (console errors and
 * warnings, page errors, failed requests) and every URL the page requested.
 */
async function inBrowser(body: (page: Page, seen: { problems: string[]; requests: string[] }) => Promise<void>): Promise<void> {
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--headless"] });
  try {
    const page = await browser.newPage();
    const seen = { problems: [] as string[], requests: [] as string[] };
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warn") seen.problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => seen.problems.push(`page error: ${String(e)}`));
    page.on("requestfailed", (q) => seen.problems.push(`request failed: ${q.url()}`));
    page.on("request", (q) => seen.requests.push(q.url()));
    await body(page, seen);
  } finally {
    await browser.close();
  }
}

describe.skipIf(reason !== null)("report.html in a real browser (headless chromium)", () => {
  it("shows every section, the sampled pairs with their diffs and the plots, offline and without errors", async () => {
    const out = tempDir();
    const r = await vertdupAsync(["run", "data-samples/sample.vert.gz", "-o", out, "--quiet", "--workers", "2", "--iterations", "20"]);
    expect(r.status, r.stderr).toBe(0);
    const pairLines = readTsv(join(out, "pairs.tsv")).length;
    expect(pairLines).toBeGreaterThan(20);
    const url = pathToFileURL(join(out, "report.html")).href;
    await inBrowser(async (page, { problems, requests }) => {
      await page.setViewport({ width: 1280, height: 900 });
      await page.goto(url, { waitUntil: "load" });
      const dom = await page.evaluate(() => ({
        sections: Array.from(document.querySelectorAll("section")).map((s) => s.id),
        pairs: document.querySelectorAll("#sample .pair.link").length,
        groups: document.querySelectorAll("#sample .pair.group").length,
        withTexts: document.querySelectorAll("#sample .pair.link > .docs").length,
        declared: Number(document.querySelector("#sample")?.getAttribute("data-pairs")),
        declaredGroups: Number(document.querySelector("#sample")?.getAttribute("data-groups")),
        marks: document.querySelectorAll("#sample .doc mark").length,
        svgs: Array.from(document.querySelectorAll("svg")).map((s) => ({ marks: s.querySelectorAll("rect, circle").length, width: s.getBoundingClientRect().width })),
        largest: document.querySelectorAll("#largest tr").length - 1,
        scripts: document.querySelectorAll("script").length,
      }));
      const shot = join(SHOTS, "report.png");
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: shot, fullPage: true });
      console.log(`report.html screenshot: ${shot}`);
      expect(dom.sections).toEqual(["parameters", "clusters", "similarity", "sample", "timings"]);
      expect(dom.pairs).toBe(20);
      expect(dom.declared).toBe(20);
      expect(dom.withTexts).toBe(20);
      // Identical groups are sampled too (the sample corpus has exact copies).
      const groups = new Set(readTsv(join(out, "groups.tsv")).map((r) => r[0])).size;
      expect(groups).toBeGreaterThan(0);
      expect(dom.groups).toBe(Math.min(10, groups));
      expect(dom.declaredGroups).toBe(dom.groups);
      // The whole pair is hidden until asked for, then shown side by side.
      const whole = await page.evaluate(() => {
        const details = document.querySelector("#sample .pair.link details") as HTMLDetailsElement;
        const shown = () => (details.querySelector(".whole") as HTMLElement).checkVisibility();
        const closed = shown();
        details.open = true;
        const [a, b] = Array.from(details.querySelectorAll(".whole > .doc")).map((x) => x.getBoundingClientRect().toJSON() as DOMRect);
        return { closed, open: shown(), a, b };
      });
      expect([whole.closed, whole.open]).toEqual([false, true]);
      expect(whole.a.height).toBeGreaterThan(0);
      expect(whole.a.top).toBe(whole.b.top);
      expect(whole.a.left).toBeLessThan(whole.b.left);
      expect(dom.marks).toBeGreaterThan(0);
      // Cluster sizes, Hamming similarity, and the exact cosine of the verified pairs.
      expect(dom.svgs.length).toBe(3);
      for (const svg of dom.svgs) {
        expect(svg.marks).toBeGreaterThan(2);
        expect(svg.width).toBeGreaterThan(100);
      }
      expect(dom.largest).toBe(20);
      expect(dom.scripts).toBe(0);
      expect(problems).toEqual([]);
      expect(requests).toEqual([url]);
      expect(readFileSync(shot).subarray(1, 4).toString()).toBe("PNG");
    });
  });

  it("shows the calibration's sampling design: strata, allocation, weights, effective sizes (stratified and uniform)", async () => {
    const stratified = tempDir();
    const uniform = tempDir();
    const base = ["data-samples/sample.vert.gz", "--quiet", "--workers", "2", "--iterations", "20", "--sample", "200"];
    const runs = await Promise.all([vertdupAsync(["calibrate", ...base, "-o", stratified]), vertdupAsync(["calibrate", ...base, "-o", uniform, "--sampling", "uniform"])]);
    for (const r of runs) expect(r.status, r.stderr).toBe(0);
    await inBrowser(async (page, { problems }) => {
      const design = async (out: string) => {
        await page.goto(pathToFileURL(join(out, "report.html")).href, { waitUntil: "load" });
        return page.evaluate(() => {
          const design = document.querySelector("#calibration #design");
          const cells = (row: Element) => Array.from(row.querySelectorAll("td"), (td) => td.textContent ?? "");
          return {
            sampling: design?.getAttribute("data-sampling"),
            declared: Number(design?.getAttribute("data-strata")),
            strata: Array.from(document.querySelectorAll("#calibration #design tr")).slice(1).map(cells),
            effective: Number(document.querySelector("#effective-size")?.textContent?.replace(/,/g, "")),
            text: design?.textContent ?? "",
            table: Array.from(document.querySelectorAll("#calibration-table tr")).slice(1).map(cells),
          };
        });
      };
      const s = await design(stratified);
      const manifest = JSON.parse(readFileSync(join(stratified, "manifest.json"), "utf8"));
      const { documents, sampled } = manifest.calibration.strata as { documents: number[]; sampled: number[] };
      const held = documents.flatMap((n, h) => (n > 0 ? [h] : []));
      expect(s.sampling).toBe("stratified");
      expect(s.declared).toBe(held.length);
      expect(s.strata.map((r) => [r[0], Number(r[1]), Number(r[2])])).toEqual(held.map((h) => [STRATUM_NAMES[h], documents[h], sampled[h]]));
      expect(s.strata[0][0]).toBe("documents alone");
      // Shares of the sample add up to 100 %, each weight is N_h / n_h.
      expect(s.strata.reduce((sum, r) => sum + Number(r[3].replace(" %", "")), 0)).toBeCloseTo(100, 0);
      s.strata.forEach((r, k) => expect(Number(r[4])).toBeCloseTo(documents[held[k]] / sampled[held[k]], 2));
      expect(s.effective).toBeCloseTo(kishEffectiveSize(documents, sampled), 1);
      // Calibration rows with their effective pairs, one per threshold.
      const rows = readTsv(join(stratified, "calibration.tsv"));
      expect(s.table).toHaveLength(rows.length);
      s.table.forEach((r, k) => {
        expect(r[3]).toBe(rows[k][7] === "" ? "–" : String(Number(rows[k][7])));
        expect(r[6]).toBe(rows[k][8] === "" ? "–" : String(Number(rows[k][8])));
      });
      const u = await design(uniform);
      expect(u.sampling).toBe("uniform");
      expect(u.strata).toEqual([]);
      expect(u.text).toContain("200 documents drawn uniformly");
      expect(u.table.length).toBe(11);
      expect(problems).toEqual([]);
      const shot = join(SHOTS, "report-calibration.png");
      mkdirSync(SHOTS, { recursive: true });
      await page.goto(pathToFileURL(join(stratified, "report.html")).href, { waitUntil: "load" });
      await page.screenshot({ path: shot, fullPage: true });
      expect(readFileSync(shot).subarray(1, 4).toString()).toBe("PNG");
    });
  }, 120_000);

  it("with --against: each sampled pair's old and new document side by side, the old one named by its index", async () => {
    const dir = tempDir();
    const [base, batch] = writeBatches(dir, [60, 30]);
    const index = join(dir, "base.idx");
    const opts = ["--method", "minhash", "--quiet", "--workers", "1"];
    expect((await vertdupAsync(["run", base, "-w", index, "-o", join(dir, "out0"), ...opts])).status).toBe(0);
    const out = join(dir, "out1");
    const r = await vertdupAsync(["run", batch, "-o", out, "--against", index, ...opts]);
    expect(r.status, r.stderr).toBe(0);
    const url = pathToFileURL(join(out, "report.html")).href;
    await inBrowser(async (page, { problems }) => {
      await page.setViewport({ width: 1280, height: 900 });
      await page.goto(url, { waitUntil: "load" });
      const pairs = await page.evaluate(() =>
        Array.from(document.querySelectorAll("#sample .pair.link")).map((p) => ({
          head: p.querySelector("h3")?.textContent ?? "",
          // The two documents' notes head the pair's grid; its text is in the rows below them.
          sides: Array.from(p.querySelectorAll(".docs > .doc"))
            .slice(0, 2)
            .map((d) => ({ note: d.querySelector(".note")?.textContent ?? "", box: d.getBoundingClientRect().toJSON() as DOMRect })),
          text: p.querySelector(".docs")?.textContent ?? "",
        })),
      );
      await page.screenshot({ path: join(SHOTS, "report-against.png"), fullPage: true });
      expect(pairs).toHaveLength(Math.min(20, readTsv(join(out, "pairs.tsv")).length));
      const crossing = pairs.filter((p) => p.head.includes(`(${index})`));
      expect(crossing.length).toBeGreaterThan(0);
      for (const p of crossing) {
        expect(p.sides).toHaveLength(2);
        const [a, b] = p.sides;
        // Side by side: one row, the old document (named in its index) on the left.
        expect(a.box.top).toBe(b.box.top);
        expect(a.box.left).toBeLessThan(b.box.left);
        expect(a.note).toMatch(new RegExp(`^#\\d+ of ${index.replace(/[.]/g, "\\.")}, \\d+ tokens`));
        expect(b.note).toMatch(/^new #\d+, \d+ tokens/);
        expect(p.text.length).toBeGreaterThan(a.note.length + b.note.length + 20);
      }
      expect(problems).toEqual([]);
    });
  });
});
