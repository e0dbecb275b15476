import { readFileSync } from "node:fs";
import { expectSameClusters } from "../helpers/same-clusters.js";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTsv, removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

afterAll(removeTempDirs);

// `run --verify` (the default) on the sample (500 documents, 100 planted near copies),
// against the exact all-pairs cosine of the same work directory (`vertdup similarity`).
describe("--verify: PLEB pairs checked against the exact cosine", () => {
  const SAMPLE = "data-samples/sample.vert.gz";
  const COSINE = 0.9;
  let work: string;
  let reference: Map<string, number>;
  /** Outputs of the default run with --pairs all, and with the default --pairs edges. */
  let all: string;
  let edges: string;

  const run = (args: string[]) => {
    const out = tempDir();
    const cosine = args.includes("--no-verify") ? [] : ["--cosine-threshold", String(COSINE)];
    const r = vertdup(["run", SAMPLE, "-o", out, "--quiet", ...cosine, ...args]);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.status).toBe(0);
    return out;
  };
  const file = (out: string, name: string) => readFileSync(join(out, name), "utf8");

  beforeAll(() => {
    work = join(tempDir(), "w");
    all = run(["-w", work, "--pairs", "all"]);
    edges = run(["--workers", "1"]);
    const ref = join(tempDir(), "ref.tsv");
    expect(vertdup(["similarity", "-w", work, "-o", ref, "--threshold", String(COSINE), "--quiet"]).status).toBe(0);
    reference = new Map(readTsv(ref).map(([a, b, s]) => [`${a}\t${b}`, Number(s)]));
  });

  it("reports only pairs at exact cosine ≥ the threshold, and ≥ 98 % of them (--pairs all)", () => {
    const out = all;
    expect(file(out, "pairs.tsv").split("\n")[0]).toBe("doc_a\tdoc_b\tsimilarity\tcosine");
    const found = readTsv(join(out, "pairs.tsv"));
    expect(reference.size).toBeGreaterThan(50);
    let hits = 0;
    for (const [a, b, , cosine] of found) {
      expect(Number(cosine)).toBeGreaterThanOrEqual(COSINE);
      expect(reference.has(`${a}\t${b}`)).toBe(true);
      expect(Number(cosine)).toBeCloseTo(reference.get(`${a}\t${b}`) as number, 4);
      hits++;
    }
    expect(hits / reference.size).toBeGreaterThanOrEqual(0.98);
    const m = JSON.parse(file(out, "manifest.json"));
    expect(m.pleb.cosineThreshold).toBe(COSINE);
    // Candidates at the derived Hamming threshold (1024 bits, cosine 0.9: distance ≤ 174).
    expect(m.pleb.threshold).toBe(1 - 174 / 1024);
    expect(m.counts.rejectedCandidates).toBeGreaterThan(0);
  });

  it("builds clusters from verified pairs only: the spanning forest's clusters are those of every verified pair", () => {
    expectSameClusters(edges, all);
    for (const [, , , cosine] of readTsv(join(edges, "pairs.tsv"))) expect(Number(cosine)).toBeGreaterThanOrEqual(COSINE);
    // Without verification the same candidates would join more documents.
    const raw = run(["--no-verify", "--threshold", String(1 - 174 / 1024)]);
    expect(readTsv(join(raw, "clusters.tsv")).length).toBeGreaterThan(readTsv(join(edges, "clusters.tsv")).length);
  });

  it("writes byte-identical outputs whatever --workers and --iterations-per-group", () => {
    const other = run(["--workers", "3", "--iterations-per-group", "7"]);
    for (const name of ["pairs.tsv", "clusters.tsv", "groups.tsv"]) expect(file(other, name)).toBe(file(edges, name));
  });

  it("--no-verify keeps the raw Hamming pairs at --threshold 0.9 (three columns, no cosine threshold)", () => {
    const out = run(["--no-verify"]);
    expect(file(out, "pairs.tsv").split("\n")[0]).toBe("doc_a\tdoc_b\tsimilarity");
    const m = JSON.parse(file(out, "manifest.json"));
    expect(m.pleb).toEqual({ threshold: 0.9, beam: 50, shiftCount: 70, iterations: 100, seed: 1, pairs: "edges" });
    expect(m.counts.verifiedCandidates).toBeUndefined();
  });
});
