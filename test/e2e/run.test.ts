import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTsv, removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

const SAMPLE = "data-samples/sample.vert.gz";
const TRUTH = "data-samples/sample.truth.tsv";
const FAST = ["--iterations", "30", "--quiet"];

afterAll(removeTempDirs);

describe("vertdup run on the bundled sample", () => {
  let out: string;
  let pairs: string[][];

  beforeAll(() => {
    out = tempDir();
    // --pairs all: every document pair found, to check them against the planted copies;
    // --no-verify: the raw Hamming pairs (test/e2e/verify.test.ts checks --verify).
    const r = vertdup(["run", SAMPLE, "-o", out, "--workers", "2", "--pairs", "all", "--no-verify", ...FAST]);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(join(out, "pairs.tsv"));
    pairs = readTsv(join(out, "pairs.tsv"));
  });

  it("writes pairs.tsv with the header, ordered pairs and 4-decimal similarities ≥ threshold", () => {
    expect(readFileSync(join(out, "pairs.tsv"), "utf8").startsWith("doc_a\tdoc_b\tsimilarity\n")).toBe(true);
    expect(pairs.length).toBeGreaterThan(50);
    for (const [a, b, sim] of pairs) {
      expect(a < b).toBe(true); // sample ids (d00001…) sort like corpus order
      expect(sim).toMatch(/^[01]\.\d{4}$/);
      expect(Number(sim)).toBeGreaterThanOrEqual(0.9);
    }
    const keys = pairs.map(([a, b]) => `${a}\t${b}`);
    expect([...keys].sort()).toEqual(keys);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("finds the planted copies edited at most 1%, and nearly all edited 2%", () => {
    // At threshold 0.9 the Hamming similarity stands for tf-idf cosine ≈ cos(0.1π) = 0.95;
    // a 2% edit can fall just below it (one pair of the sample has 0.8975 exactly).
    const found = new Set(pairs.map(([a, b]) => `${a}\t${b}`));
    const missedOf = (rate: number) => {
      const planted = readTsv(TRUTH).filter(([, , r]) => Number(r) === rate);
      expect(planted.length).toBeGreaterThan(10);
      return planted.filter(([copy, source]) => !found.has(copy < source ? `${copy}\t${source}` : `${source}\t${copy}`));
    };
    expect(missedOf(0)).toEqual([]);
    expect(missedOf(0.01)).toEqual([]);
    expect(missedOf(0.02).length).toBeLessThanOrEqual(1);
  });

  it("writes the PLEB log and a manifest with parameters, counts and phases", () => {
    const log = readTsv(join(out, "pleb-log.tsv"));
    expect(log.length).toBe(31);
    expect(log.map((r) => Number(r[0]))).toEqual(Array.from({ length: 31 }, (_, i) => i));
    let total = 0;
    for (const [, fresh, running] of log) {
      total += Number(fresh);
      expect(Number(running)).toBe(total);
    }
    expect(total).toBe(pairs.length);
    const m = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(m.pleb).toEqual({ threshold: 0.9, beam: 50, shiftCount: 70, iterations: 30, seed: 1, pairs: "all" });
    expect(m.prepare.bits).toBe(1024);
    expect(m.counts.documents).toBe(500);
    expect(m.counts.pairs).toBe(pairs.length);
    expect(m.counts.distinctSignatures).toBeLessThanOrEqual(500);
    expect(m.inputs).toEqual([SAMPLE]);
    for (const phase of ["count", "vocabulary", "sign", "merge", "pleb", "output"]) {
      expect(m.phases[phase].seconds).toBeGreaterThanOrEqual(0);
      expect(m.phases[phase].peakRssMiB).toBeGreaterThan(0);
    }
    expect(readdirSync(out).sort()).toEqual(["clusters.tsv", "groups.tsv", "manifest.json", "pairs.tsv", "pleb-log.tsv", "report.html"]);
  });
});

describe("determinism", () => {
  const pairsOf = (args: string[], input?: Buffer) => {
    const out = tempDir();
    const r = vertdup(["run", ...args, "-o", out, ...FAST], input);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.status).toBe(0);
    return readFileSync(join(out, "pairs.tsv"));
  };

  it("gives byte-identical pairs.tsv for 1 and 2 workers and any chunk size", () => {
    const reference = pairsOf([SAMPLE, "--workers", "1"]);
    expect(pairsOf([SAMPLE, "--workers", "2"]).equals(reference)).toBe(true);
    expect(pairsOf([SAMPLE, "--workers", "2", "--chunk-size", "20000"]).equals(reference)).toBe(true);
    expect(pairsOf([SAMPLE, "--workers", "1", "--chunk-size", "65536"]).equals(reference)).toBe(true);
  });

  it("reads standard input like a file", () => {
    const reference = pairsOf([SAMPLE, "--workers", "2"]);
    expect(pairsOf(["-", "--workers", "2"], readFileSync(SAMPLE)).length).toBeGreaterThan(0);
    // stdin is not gzip-decoded by name: feed the same corpus uncompressed
    const { gunzipSync } = require("node:zlib") as typeof import("node:zlib");
    expect(pairsOf(["-", "--workers", "2"], gunzipSync(readFileSync(SAMPLE))).equals(reference)).toBe(true);
  });

  it("gives other pairs with another seed", () => {
    const a = pairsOf([SAMPLE, "--seed", "1"]);
    const b = pairsOf([SAMPLE, "--seed", "2"]);
    expect(a.equals(b)).toBe(false);
  });
});

describe("prepare and pleb as two steps", () => {
  it("equal a whole run, and pleb re-runs on the same work directory", () => {
    const work = tempDir();
    const whole = tempDir();
    const split = tempDir();
    expect(vertdup(["run", SAMPLE, "-o", whole, "-w", join(work, "w1"), ...FAST]).status).toBe(0);
    const p = vertdup(["prepare", SAMPLE, "-w", join(work, "w2"), "--quiet"]);
    expect(p.status).toBe(0);
    expect(p.stdout).toMatch(/prepared 500 documents/);
    expect(vertdup(["pleb", "-w", join(work, "w2"), "-o", split, ...FAST]).status).toBe(0);
    expect(readFileSync(join(split, "pairs.tsv")).equals(readFileSync(join(whole, "pairs.tsv")))).toBe(true);
    const wider = tempDir();
    expect(vertdup(["pleb", "-w", join(work, "w2"), "-o", wider, "--beam", "100", ...FAST]).status).toBe(0);
    const narrow = new Set(readTsv(join(split, "pairs.tsv")).map((r) => r.join("\t")));
    const wide = new Set(readTsv(join(wider, "pairs.tsv")).map((r) => r.join("\t")));
    expect(wide.size).toBeGreaterThanOrEqual(narrow.size);
    expect(existsSync(join(work, "w1", "prepare.json"))).toBe(true);
  });
});
