import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTsv, removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";
import { rng } from "../helpers/vert.js";

afterAll(removeTempDirs);

/** 100 pairs of identical documents (random words, 5–400 tokens): every pair has cosine exactly 1. */
function identicalPairs(path: string): void {
  const r = rng(30);
  const docs: string[] = [];
  for (let p = 0; p < 100; p++) {
    const length = 5 + Math.floor(r() * 400);
    const tokens = Array.from({ length }, () => `w${Math.floor(Math.pow(r(), 2) * 3000)}`);
    const body = `<p>\n${tokens.join("\n")}\n</p>\n`;
    docs.push(`<doc id="a${p}">\n${body}</doc>\n`, `<doc id="b${p}">\n${body}</doc>\n`);
  }
  writeFileSync(path, docs.join(""));
}

describe("similarity --threshold 1", () => {
  const work = tempDir();
  const corpus = join(tempDir(), "identical.vert");
  let ids: string[];
  beforeAll(() => {
    identicalPairs(corpus);
    const r = vertdup(["prepare", corpus, "-w", work, "--quiet"]);
    expect(r.stderr).toBe(r.status === 0 ? r.stderr : "");
    expect(r.status).toBe(0);
    ids = Array.from({ length: 100 }, (_, p) => `a${p}\tb${p}`);
  }, 60_000);

  it("lists all 100 pairs of identical documents, at similarity 1", () => {
    const out = join(tempDir(), "sim.tsv");
    expect(vertdup(["similarity", "-w", work, "-o", out, "--threshold", "1"]).status).toBe(0);
    const rows = readTsv(out);
    expect(rows.map((f) => `${f[0]}\t${f[1]}`).sort()).toEqual([...ids].sort());
    expect(new Set(rows.map((f) => f[2]))).toEqual(new Set(["1.0000"]));
  }, 60_000);

  it("lists them through the sampled path too", () => {
    const list = join(tempDir(), "sample.txt");
    writeFileSync(list, Array.from({ length: 100 }, (_, p) => `a${p}\n`).join(""));
    const out = join(tempDir(), "sim.tsv");
    expect(vertdup(["similarity", "-w", work, "-o", out, "--threshold", "1", "--sample-list", list]).status).toBe(0);
    expect(readTsv(out).map((f) => `${f[0]}\t${f[1]}`).sort()).toEqual([...ids].sort());
  }, 60_000);

  it("calibrate's threshold-1.00 row counts every identical pair: recall and precision 1", () => {
    const out = tempDir();
    const r = vertdup(["calibrate", corpus, "-w", tempDir(), "-o", out, "--sample", "200", "--quiet"]);
    expect(r.status).toBe(0);
    const rows = readTsv(join(out, "calibration.tsv"));
    const top = rows.find((f) => f[0] === "1.00");
    // threshold, recall, low, high, precision, low, high, recall_trials, precision_trials (before: precision 0.6600 over 98.8 pairs)
    expect(top?.slice(0, 2)).toEqual(["1.00", "1.0000"]);
    expect(top?.[4]).toBe("1.0000");
    expect(top?.[7]).toBe("200.0");
  }, 120_000);
});
