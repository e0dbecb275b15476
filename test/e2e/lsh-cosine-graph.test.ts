import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, readTsv, removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";
import { expectSameClusters } from "../helpers/same-clusters.js";
import { writeIdenticalCorpus, writeNearCopyCorpus } from "../helpers/copies.js";

afterAll(removeTempDirs);

const SAMPLE = "data-samples/sample.vert.gz";

/** `vertdup args… -o <new dir> --quiet` in a child process, without blocking the test runner. */
async function run(args: string[]): Promise<string> {
  const out = tempDir();
  const child = spawn(process.execPath, [CLI, ...args, "-o", out, "--quiet"], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const status = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  expect(stderr).not.toMatch(/error/);
  expect(status).toBe(0);
  return out;
}

/** The outputs that must not depend on execution settings (pleb-log without its seconds). */
function outputsOf(out: string): string[] {
  const log = readFileSync(join(out, "pleb-log.tsv"), "utf8")
    .split("\n")
    .map((line) => line.split("\t").filter((_, k) => k !== 3).join("\t"))
    .join("\n");
  return [...["pairs.tsv", "groups.tsv", "clusters.tsv"].map((f) => readFileSync(join(out, f), "utf8")), log];
}

describe("lsh-cosine on huge groups of copies", () => {
  it("runs 200,000 identical documents in seconds, with outputs linear in the corpus", async () => {
    const corpus = join(tempDir(), "ident.vert");
    writeIdenticalCorpus(corpus, 200_000, 20);
    const out = await run(["run", corpus, "--iterations", "5"]);
    const m = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(m.counts.documents).toBe(200_020);
    expect(m.counts.groups).toBe(1);
    expect(m.counts.documentsInGroups).toBe(200_000);
    expect(m.counts.identicalSignaturePairs).toBe((200_000 * 199_999) / 2);
    expect(m.clusters.clusters).toBe(1);
    expect(m.clusters.duplicates).toBe(199_999);
    expect(readTsv(join(out, "pairs.tsv"))).toEqual([]);
    const log = readTsv(join(out, "pleb-log.tsv"));
    expect(log[0].slice(0, 3)).toEqual(["0", "199999", "199999"]);
    expect(log.slice(1).every((row) => row[1] === "0")).toBe(true);
    const total = readdirSync(out).reduce((n, f) => n + readFileSync(join(out, f)).length, 0);
    expect(total).toBeLessThan(20 << 20);
  }, 60_000);

  it("keeps PLEB bounded on a cluster of near copies: at most one kept pair per signature", async () => {
    const corpus = join(tempDir(), "near.vert");
    writeNearCopyCorpus(corpus, 3000);
    const work = tempDir();
    // tf weights: with tf-idf the article's words, in every document, would weigh nothing.
    const out = await run(["run", corpus, "-w", work, "--weighting", "tf", "--iterations", "20", "--iterations-per-group", "5"]);
    const m = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    const groupPairs = readdirSync(join(work, "markers"))
      .filter((f) => f.includes("-group-"))
      .map((f) => JSON.parse(readFileSync(join(work, "markers", f), "utf8")).pairs as number);
    expect(groupPairs.length).toBe(4);
    for (const p of groupPairs) expect(p).toBeLessThan(m.counts.distinctSignatures);
    expect(m.counts.signaturePairs).toBeLessThan(m.counts.distinctSignatures);
    expect(m.clusters.documentsInClusters).toBeGreaterThan(2900);
    const log = readTsv(join(out, "pleb-log.tsv"));
    expect(Number(log[log.length - 1][2])).toBe(m.clusters.documentsInClusters - m.clusters.clusters);
  }, 60_000);
});

describe("--pairs edges", () => {
  const base = ["run", SAMPLE, "--iterations", "12", "--threshold", "0.8"];

  it("gives the same outputs whatever --workers and --iterations-per-group", async () => {
    const first = await run([...base, "--workers", "1", "--iterations-per-group", "12"]);
    expect(readTsv(join(first, "pairs.tsv")).length).toBeGreaterThan(10);
    const reference = outputsOf(first);
    for (const [workers, perGroup] of [["2", "1"], ["2", "5"], ["1", "3"]]) {
      expect(outputsOf(await run([...base, "--workers", workers, "--iterations-per-group", perGroup]))).toEqual(reference);
    }
  }, 120_000);

  it("clusters exactly as --pairs all, with fewer pairs", async () => {
    const edges = await run(base);
    const all = await run([...base, "--pairs", "all"]);
    expectSameClusters(edges, all);
    const me = JSON.parse(readFileSync(join(edges, "manifest.json"), "utf8"));
    const ma = JSON.parse(readFileSync(join(all, "manifest.json"), "utf8"));
    expect(me.pleb.pairs).toBe("edges");
    expect(ma.pleb.pairs).toBe("all");
    expect(me.counts.signaturePairs).toBeLessThan(ma.counts.signaturePairs);
    expect(me.counts.signaturePairs).toBe(me.clusters.documentsInClusters - me.clusters.clusters - (me.counts.documentsInGroups - me.counts.groups));
    expect(readFileSync(join(edges, "pleb-log.tsv"), "utf8")).toMatch(/^iteration\tnew_links\ttotal_links\tseconds\n/);
    expect(readFileSync(join(all, "pleb-log.tsv"), "utf8")).toMatch(/^iteration\tnew_pairs\ttotal_pairs\tseconds\n/);
  }, 120_000);

  it("refuses pleb --reference without --pairs all", () => {
    const work = tempDir();
    expect(vertdup(["prepare", SAMPLE, "-w", work, "--quiet"]).status).toBe(0);
    const reference = join(tempDir(), "ref.tsv");
    expect(vertdup(["hamming-full", "-w", work, "-o", reference, "--threshold", "0.9"]).status).toBe(0);
    const refused = vertdup(["pleb", "-w", work, "-o", tempDir(), "--reference", reference, "--quiet"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/vertdup: error: --reference needs --pairs all/);
    const out = tempDir();
    const ok = vertdup(["pleb", "-w", work, "-o", out, "--reference", reference, "--pairs", "all", "--iterations", "5", "--quiet"]);
    expect(ok.status).toBe(0);
    expect(readFileSync(join(out, "pleb-log.tsv"), "utf8")).toMatch(/\trecall\n/);
  }, 60_000);
});
