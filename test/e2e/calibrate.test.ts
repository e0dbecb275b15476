import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateCorpus, DEFAULT_GENERATOR } from "../../scripts/generate-corpus.js";
import { readClustersTsv } from "../../src/output/clusters-tsv.js";
import { readPrepareManifest } from "../../src/features/prepare-manifest.js";
import { drawStratified, stratifiedDesign } from "../../src/eval/stratified-sample.js";
import { readPairsFile } from "../../src/eval/pairs-file.js";
import { loadDocIds } from "../../src/output/doc-ids.js";
import { escapeField } from "../../src/output/tsv-field.js";
import { CLI, readTsv, removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

const KJV = "data-samples/kjv-3000.vert.gz";

/** Share of the pairs of an exact reference file (≥ threshold) that a run put in one cluster, over every pair. */
/** Recall of the reference pairs at ≥ threshold (and, given `alsoIn`, in that pairs file too) by the run's clusters. */
async function fullRecall(work: string, out: string, referenceFile: string, threshold: number, alsoIn?: string): Promise<number> {
  const prepared = await readPrepareManifest(work);
  const ids = loadDocIds(work, prepared.counts.shards);
  const reference = await readPairsFile(referenceFile, ids);
  const n = prepared.counts.documents;
  const key = (a: number, b: number) => Math.min(a, b) * n + Math.max(a, b);
  const also = alsoIn === undefined ? undefined : await readPairsFile(alsoIn, ids);
  const allowed = also === undefined ? undefined : new Set(Array.from(also.a, (a, k) => key(a, also.b[k])));
  const clusterOf = (await readClustersTsv(join(out, "clusters.tsv"))).clusterOf(prepared.counts.documents);
  let total = 0;
  let found = 0;
  for (let k = 0; k < reference.a.length; k++) {
    if (reference.similarity[k] < threshold) continue;
    if (allowed !== undefined && !allowed.has(key(reference.a[k], reference.b[k]))) continue;
    total++;
    if (clusterOf[reference.a[k]] !== 0 && clusterOf[reference.a[k]] === clusterOf[reference.b[k]]) found++;
  }
  return found / total;
}

afterAll(removeTempDirs);

describe("calibrate", () => {
  let corpus: string;
  const work = tempDir();
  const out = tempDir();

  beforeAll(async () => {
    const dir = tempDir();
    corpus = join(dir, "gen.vert");
    await generateCorpus(corpus, join(dir, "gen.truth.tsv"), { ...DEFAULT_GENERATOR, docs: 3000, vocab: 20_000, dupShare: 0.3, medianTokens: 120 });
    const r = vertdup(["calibrate", corpus, "-w", work, "-o", out, "--sample", "500", "--iterations", "20", "--workers", "2", "--quiet"]);
    expect(r.stderr).toMatch(/vertdup: calibration: 500 documents sampled, \d+ pairs with cosine ≥ 0.5/);
    expect(r.status).toBe(0);
  }, 120_000);

  it("scores the sample against the corpus exactly as similarity --sample-list does", async () => {
    const prepared = await readPrepareManifest(work);
    const ids = loadDocIds(work, prepared.counts.shards);
    const clusterOf = (await readClustersTsv(join(out, "clusters.tsv"))).clusterOf(prepared.counts.documents);
    const sampled = drawStratified(stratifiedDesign(clusterOf, 500), 1);
    const list = join(tempDir(), "sample.txt");
    writeFileSync(list, [...sampled.keys()].filter((d) => sampled[d] === 1).map((d) => escapeField(ids.get(d)) + "\n").join(""));
    const reference = join(tempDir(), "sample-sim.tsv");
    expect(vertdup(["similarity", "-w", work, "-o", reference, "--threshold", "0.5", "--sample-list", list]).status).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(manifest.calibration.sampledDocuments).toBe(500);
    expect(manifest.calibration.referencePairs).toBe(readTsv(reference).length);
    expect(manifest.phases.calibrate.seconds).toBeGreaterThan(0);
  }, 60_000);

  it("estimates a recall whose interval holds the recall over every pair of the exact reference", async () => {
    const reference = join(tempDir(), "sim.tsv");
    expect(vertdup(["similarity", "-w", work, "-o", reference, "--threshold", "0.5"]).status).toBe(0);
    const rows = readTsv(join(out, "calibration.tsv"));
    // report.html is written after calibration.tsv, so that it shows the table.
    const report = readFileSync(join(out, "report.html"), "utf8");
    const section = /<section id="calibration">.*?<\/section>/s.exec(report)?.[0] ?? "";
    expect(section).toContain("Recall and precision against the exact reference");
    // Fractions of the manifest are shown as numbers, not grouped like counts.
    expect(report).toMatch(/<b>recall<\/b> 0\.\d{1,4}</);
    expect(rows.map((r) => r[0])).toEqual(["0.50", "0.55", "0.60", "0.65", "0.70", "0.75", "0.80", "0.85", "0.90", "0.95", "1.00"]);
    for (const [threshold, , low, high] of rows) {
      const recall = await fullRecall(work, out, reference, Number(threshold));
      expect(recall, `recall at cosine ≥ ${threshold}`).toBeGreaterThanOrEqual(Number(low) - 5e-5);
      expect(recall, `recall at cosine ≥ ${threshold}`).toBeLessThanOrEqual(Number(high) + 5e-5);
    }
  }, 60_000);

  it("grows the sample with --max-width: the same table with 1 and 2 workers, intervals that hold the recall over every pair", async () => {
    const grown = [1, 2].map((workers) => {
      const o = tempDir();
      const r = vertdup(["pleb", "-w", work, "-o", o, "--estimate-recall", "--sample", "100", "--max-width", "0.03", "--max-sample", "1600", "--iterations", "20", "--workers", String(workers), "--quiet"]);
      expect(r.status, r.stderr).toBe(0);
      return { out: o, table: readFileSync(join(o, "calibration.tsv"), "utf8"), calibration: JSON.parse(readFileSync(join(o, "manifest.json"), "utf8")).calibration };
    });
    expect(grown[1].table).toBe(grown[0].table);
    expect(grown[1].calibration).toEqual(grown[0].calibration);
    const { growth, sampledDocuments } = grown[0].calibration;
    expect(growth.batches[0]).toBe(100);
    expect(growth.batches.length).toBeGreaterThan(1);
    expect(growth.batches.at(-1)).toBe(sampledDocuments);
    const rows = readTsv(join(grown[0].out, "calibration.tsv"));
    for (const [threshold, , low, high] of rows) expect((Number(high) - Number(low)) / 2 <= 0.03, threshold).toBe(growth.withinWidth.includes(Number(threshold)));
    const reference = join(tempDir(), "sim.tsv");
    expect(vertdup(["similarity", "-w", work, "-o", reference, "--threshold", "0.5"]).status).toBe(0);
    for (const [threshold, , low, high] of rows) {
      const recall = await fullRecall(work, grown[0].out, reference, Number(threshold));
      expect(recall, `recall at cosine ≥ ${threshold}`).toBeGreaterThanOrEqual(Number(low) - 5e-5);
      expect(recall, `recall at cosine ≥ ${threshold}`).toBeLessThanOrEqual(Number(high) + 5e-5);
    }
  }, 180_000);
});

describe("calibrate's methods", () => {
  it("refuses exact (it needs no calibration), saying why, before any work", () => {
    for (const [args, message] of [
      [["calibrate", KJV, "--method", "exact"], /vertdup: error: --method exact needs no calibration: it pairs exactly the documents with identical normalised token streams/],
      [["run", KJV, "--method", "minhash", "--target-recall", "0.9"], /vertdup: error: --target-recall on --method minhash needs --estimate-recall/],
    ] as const) {
      const out = tempDir();
      const r = vertdup([...args, "-o", out, "--quiet"]);
      expect(r.stderr).toMatch(message);
      expect(r.status).toBe(1);
      expect(existsSync(join(out, "manifest.json"))).toBe(false);
    }
  });

  it("slurm run --estimate-recall adds a calibrate job after the outputs (--sample, --sampling in the run's settings)", () => {
    const work = join(tempDir(), "work");
    const r = vertdup(["slurm", "run", KJV, "-w", work, "-o", tempDir(), "--estimate-recall", "--sample", "300", "--sampling", "uniform", "--dry-run"]);
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(join(work, "slurm")).filter((f) => f.endsWith(".sbatch")).sort()).toEqual(["1-plan.sbatch", "2-count.sbatch", "3-vocabulary.sbatch", "4-sign.sbatch", "5-merge.sbatch", "6-pleb.sbatch", "7-output.sbatch", "8-calibrate.sbatch", "9-index.sbatch"]);
    expect(readFileSync(join(work, "slurm", "8-calibrate.sbatch"), "utf8")).toMatch(/ 'task' 'calibrate' '-w' /);
    const settings = JSON.parse(readFileSync(join(work, "slurm", "run.json"), "utf8"));
    expect(settings.calibrate).toEqual({ targetRecall: 0.99, sampling: "uniform" });
    expect(settings.pleb).toMatchObject({ recallSample: 300, recallSampling: "uniform" });
    const plain = join(tempDir(), "plain");
    expect(vertdup(["slurm", "run", KJV, "-w", plain, "-o", tempDir(), "--dry-run"]).status).toBe(0);
    expect(existsSync(join(plain, "slurm", "8-calibrate.sbatch"))).toBe(false);
    expect(vertdup(["slurm", "run", KJV, "-w", join(tempDir(), "w"), "-o", tempDir(), "--sample", "300", "--dry-run"]).stderr).toMatch(/--sample does nothing without --estimate-recall/);
    // minhash, paragraphs, simhash384: the search job calibrates, as `run --estimate-recall` does.
    const m = join(tempDir(), "m");
    expect(vertdup(["slurm", "run", KJV, "-w", m, "-o", tempDir(), "--method", "minhash", "--estimate-recall", "--sample", "300", "--max-width", "0.05", "--dry-run"]).status).toBe(0);
    expect(JSON.parse(readFileSync(join(m, "slurm", "run.json"), "utf8")).run.calibrate).toEqual({ sample: 300, targetRecall: 0.99, sampling: "stratified", maxWidth: 0.05 });
  });

  it("calibrates minhash, simhash384 (calibrate) and paragraphs (run --estimate-recall): calibration.tsv, the manifest's recommendation and the report's table", () => {
    for (const [command, method, measure] of [["calibrate", "minhash", "Jaccard of shingles"], ["run", "paragraphs", "Jaccard of long paragraphs"], ["calibrate", "simhash384", "cosine of the token-count vectors"]] as const) {
      const out = tempDir();
      const r = vertdup([command, KJV, "-o", out, "--method", method, "--sample", "500", "--seed", "3", "--workers", "2", "--quiet", ...(command === "run" ? ["--estimate-recall", "--sampling", "uniform"] : [])]);
      expect(r.status).toBe(0);
      expect(r.stderr).toMatch(method === "simhash384" ? /vertdup: calibration: 500 documents sampled, \d+ pairs with cosine ≥ 0.9 in/ : /vertdup: calibration: 500 documents sampled, \d+ pairs with Jaccard ≥ 0.5 in/);
      const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
      expect(manifest.calibration).toMatchObject({ similarity: measure, sampling: command === "run" ? "uniform" : "stratified", sampledDocuments: 500, targetRecall: 0.99 });
      if (command === "calibrate") expect(manifest.calibration.strata.sampled.reduce((x: number, y: number) => x + y)).toBe(500);
      expect(manifest.calibration.referencePairs).toBeGreaterThan(0);
      expect(readTsv(join(out, "calibration.tsv"))).toHaveLength(11);
      const report = readFileSync(join(out, "report.html"), "utf8");
      expect(/<section id="calibration">.*?<\/section>/s.exec(report)?.[0] ?? "").toContain("Recall and precision against the exact reference");
      if (method === "minhash") expect(r.stderr).toMatch(/at --threshold 0.8 the run's bands × rows \d+ × \d+ \(S-curve 0\.\d{4}\), --bands \d+ --rows \d+ reaches it/);
      if (method === "simhash384") expect(r.stderr).toContain("--max-distance 5 aims at pairs of cosine ≥ cos(π·5/384) = 0.9992");
    }
  }, 60_000);
});

describe("--target-recall", () => {
  it("stops at the same iteration with 1 and 2 workers (stratified sample), where the recall against hamming-full reaches the target", async () => {
    const runs = [1, 2].map((workers) => {
      const work = tempDir();
      const out = tempDir();
      const args = ["run", KJV, "-w", work, "-o", out, "--target-recall", "0.99", "--sample", "1500", "--iterations", "100", "--iterations-per-group", "5"];
      const r = vertdup([...args, "--workers", String(workers), "--quiet"]);
      expect(r.status).toBe(0);
      return { work, out, manifest: JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) };
    });
    const [one, two] = runs;
    const stop = one.manifest.recallEstimate.iterations;
    expect(stop).toBeLessThan(100);
    expect(two.manifest.recallEstimate).toEqual(one.manifest.recallEstimate);
    // Strata of the first group's clusters (documents alone, in clusters of 2, 3–4, …), drawn in part.
    const { sampling, strata } = one.manifest.recallEstimate;
    expect(sampling).toBe("stratified");
    expect(strata.documents.reduce((x: number, y: number) => x + y)).toBe(3000);
    expect(strata.sampled.reduce((x: number, y: number) => x + y)).toBe(1500);
    expect(strata.sampled[0]).toBeLessThan(strata.documents[0]);
    expect(readFileSync(join(two.out, "clusters.tsv"))).toEqual(readFileSync(join(one.out, "clusters.tsv")));
    const log = readTsv(join(one.out, "pleb-log.tsv"));
    expect(log).toHaveLength(stop + 1);
    // The last group's lower bound reached the target, the one before did not.
    const ends = log.filter((r) => r[4] !== "");
    expect(Number(ends[ends.length - 1][5])).toBeGreaterThanOrEqual(0.99);
    expect(Number(ends[ends.length - 2][5])).toBeLessThan(0.99);
    // PLEB verifies its candidates (default): the reference is hamming-full at the candidate
    // threshold, restricted to the pairs whose exact cosine reaches --cosine-threshold.
    const { threshold, cosineThreshold } = one.manifest.pleb;
    expect(cosineThreshold).toBe(0.95);
    const reference = join(tempDir(), "hamming.tsv");
    const cosines = join(tempDir(), "cosine.tsv");
    expect(vertdup(["hamming-full", "-w", one.work, "-o", reference, "--threshold", String(threshold)]).status).toBe(0);
    expect(vertdup(["similarity", "-w", one.work, "-o", cosines, "--threshold", String(cosineThreshold)]).status).toBe(0);
    expect(await fullRecall(one.work, one.out, reference, threshold, cosines)).toBeGreaterThanOrEqual(0.99);
  }, 120_000);

  it("a run killed after a PLEB group's marker resumes to the same stop and outputs", () => {
    const args = (work: string, out: string) => ["run", KJV, "-w", work, "-o", out, "--target-recall", "0.99", "--sample", "3000", "--iterations", "100", "--iterations-per-group", "5", "--quiet", "--no-report"];
    const whole = { work: tempDir(), out: tempDir() };
    expect(vertdup(args(whole.work, whole.out)).status).toBe(0);
    const group = readdirSync(join(whole.work, "markers")).find((n) => /^pleb-[0-9a-f]+-group-0001\.done$/.test(n))!;
    const work = tempDir();
    const out = tempDir();
    const killed = spawnSync(process.execPath, [CLI, ...args(work, out)], { env: { ...process.env, VERTDUP_FAULT: `kill:marker:${group.slice(0, -".done".length)}` } });
    expect(killed.signal).toBe("SIGKILL");
    expect(readdirSync(join(work, "markers")).filter((n) => n.includes("-group-")).sort()).toEqual([group.replace("0001", "0000"), group]);
    const resumed = vertdup([...args(work, out), "--resume"]);
    expect(resumed.status, resumed.stderr).toBe(0);
    const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    expect(manifest(out).recallEstimate).toEqual(manifest(whole.out).recallEstimate);
    for (const f of ["pairs.tsv", "clusters.tsv"]) expect(readFileSync(join(out, f))).toEqual(readFileSync(join(whole.out, f)));
  }, 120_000);
});
