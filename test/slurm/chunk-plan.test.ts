import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir, vertdupAsync } from "../helpers/cli.js";
import { jobs } from "../helpers/slurm.js";

afterAll(removeTempDirs);

// Several chunks per array task, and fewer iterations: the pipeline is run by hand, task by task.
const OPTIONS = ["--chunk-size", "300000", "--iterations", "10", "--iterations-per-group", "5"];

const token = (work: string) => (JSON.parse(readFileSync(join(work, "vertdup.lock"), "utf8")) as { token: string }).token;

const runTask = (work: string, name: string, index: number, size: number) => vertdupAsync(["task", name, "-w", work, "--index", String(index), "--count", String(size), "--token", token(work)]);

/** Runs every task of every job in order, as Slurm would; `planned` is called after the plan job. */
async function runJobs(work: string, planned: () => void): Promise<void> {
  for (const { name, size } of jobs(work)) {
    for (let index = 0; index < size; index++) {
      const t = await runTask(work, name, index, size);
      expect(t.status, `${name} ${index}: ${t.stderr}`).toBe(0);
    }
    if (name === "plan") planned();
  }
}

// The jobs' commands run by hand, as the batch scripts run them: no cluster needed.
describe("slurm run: the chunk plan of plain inputs", () => {
  const root = tempDir();
  const corpus = join(root, "kjv-3000.vert");
  writeFileSync(corpus, gunzipSync(readFileSync("data-samples/kjv-3000.vert.gz")));

  it("is made once by the plan job; the count tasks take their ranges from it, and the outputs equal a local run's", async () => {
    const local = join(root, "local");
    expect((await vertdupAsync(["run", corpus, "-o", local, "--quiet", ...OPTIONS])).status).toBe(0);
    const work = join(root, "w");
    const out = join(root, "slurm");
    const r = await vertdupAsync(["slurm", "run", corpus, "-w", work, "-o", out, "--tasks", "3", "--cpus-per-task", "1", ...OPTIONS, "--dry-run"]);
    expect(r.status, r.stderr).toBe(0);
    expect(jobs(work).map((j) => j.name)).toEqual(["plan", "count", "vocabulary", "sign", "merge", "pleb", "output", "index"]);
    await runJobs(work, () => {
      const plan = JSON.parse(readFileSync(join(work, "chunk-plan.json"), "utf8")) as { inputs: { path: string; ranges: { offset: number; length: number }[] }[] };
      const ranges = plan.inputs[0].ranges;
      expect(plan.inputs[0].path).toBe(corpus);
      // The ranges cover the file, one after the other.
      expect(ranges[0].offset).toBe(0);
      for (let k = 1; k < ranges.length; k++) expect(ranges[k].offset).toBe(ranges[k - 1].offset + ranges[k - 1].length);
      expect(ranges.at(-1)!.offset + ranges.at(-1)!.length).toBe(readFileSync(corpus).length);
      expect(ranges.length).toBeGreaterThan(3);
    });
    for (const f of ["pairs.tsv", "clusters.tsv"]) expect(readFileSync(join(out, f), "utf8"), f).toBe(readFileSync(join(local, f), "utf8"));
    expect((await vertdupAsync(["slurm", "status", "-w", work])).stdout).toMatch(/^method +lsh-cosine\nplan +1\/1 done\ncount +(\d+)\/\1 done\n/);
  }, 400_000);

  it("plans a document skipped for its size (--oversize skip) as a range of its own, as a local run skips it", async () => {
    // A giant document after the first 100 KB, at a document start.
    const text = readFileSync(corpus, "utf8");
    const at = text.indexOf("<doc", 100_000);
    const giant = join(root, "giant.vert");
    writeFileSync(giant, `${text.slice(0, at)}<doc id="giant">\n${"x".repeat(1_200_000)}\n</doc>\n${text.slice(at)}`);
    const limit = ["--max-doc-bytes", "1M", "--oversize", "skip"];
    const local = join(root, "giant-local");
    expect((await vertdupAsync(["run", giant, "-o", local, "--quiet", ...OPTIONS, ...limit])).status).toBe(0);
    const work = join(root, "w-giant");
    const out = join(root, "giant-slurm");
    expect((await vertdupAsync(["slurm", "run", giant, "-w", work, "-o", out, "--tasks", "2", "--cpus-per-task", "1", ...OPTIONS, ...limit, "--dry-run"])).status).toBe(0);
    await runJobs(work, () => {
      const plan = JSON.parse(readFileSync(join(work, "chunk-plan.json"), "utf8")) as { inputs: { ranges: { offset: number; skipped?: true }[] }[] };
      expect(plan.inputs[0].ranges.filter((r) => r.skipped === true).map((r) => r.offset)).toEqual([Buffer.byteLength(text.slice(0, at))]);
    });
    for (const f of ["pairs.tsv", "clusters.tsv"]) expect(readFileSync(join(out, f), "utf8"), f).toBe(readFileSync(join(local, f), "utf8"));
    const skipped = (dir: string) => (JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { warnings: { oversizeSkipped: unknown } }).warnings.oversizeSkipped;
    expect(skipped(out)).toEqual(skipped(local));
    expect(skipped(out)).toMatchObject({ documents: 1 });
    // A set method's features task reads the skipped document's stub from the plan too.
    const exact = ["--method", "exact", "--chunk-size", "300000", ...limit];
    const exactLocal = join(root, "giant-exact-local");
    expect((await vertdupAsync(["run", giant, "-o", exactLocal, "--quiet", ...exact])).status).toBe(0);
    const exactWork = join(root, "w-giant-exact");
    const exactOut = join(root, "giant-exact-slurm");
    expect((await vertdupAsync(["slurm", "run", giant, "-w", exactWork, "-o", exactOut, "--tasks", "2", "--cpus-per-task", "1", ...exact, "--dry-run"])).status).toBe(0);
    await runJobs(exactWork, () => expect(readFileSync(join(exactWork, "chunk-plan.json"), "utf8")).toContain('"skipped":true'));
    for (const f of ["pairs.tsv", "clusters.tsv", "groups.tsv"]) expect(readFileSync(join(exactOut, f), "utf8"), f).toBe(readFileSync(join(exactLocal, f), "utf8"));
    expect(skipped(exactOut)).toEqual(skipped(exactLocal));
    expect(skipped(exactOut)).toMatchObject({ documents: 1 });
  }, 400_000);

  /** The outputs of a set method's run: pairs, clusters, groups and the manifest's counts. */
  const methodOutputs = (dir: string) => ({
    ...Object.fromEntries(["pairs.tsv", "clusters.tsv", "groups.tsv"].map((f) => [f, readFileSync(join(dir, f), "utf8")])),
    counts: (JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { counts: unknown }).counts,
  });

  it("a set method's features tasks take their ranges from the plan, and the outputs equal a local run's", async () => {
    const chunking = ["--chunk-size", "300000"];
    for (const [method, options] of [
      ["exact", ["--keep", "first"]],
      ["simhash384", ["--max-distance", "7"]],
      ["minhash", ["--shingle-size", "3", "--threshold", "0.7"]],
      ["paragraphs", ["--short-tokens", "5", "--threshold", "0.6"]],
    ] as const) {
      const args = ["--method", method, ...options, ...chunking];
      const local = join(root, `${method}-local`);
      expect((await vertdupAsync(["run", corpus, "-o", local, "--quiet", ...args])).status).toBe(0);
      const work = join(root, `w-${method}`);
      const out = join(root, `${method}-slurm`);
      const r = await vertdupAsync(["slurm", "run", corpus, "-w", work, "-o", out, "--tasks", "3", "--cpus-per-task", "1", ...args, "--dry-run"]);
      expect(r.status, r.stderr).toBe(0);
      expect(jobs(work).map((j) => j.name)).toEqual(["plan", "features", "search", "output", "index"]);
      let ranges = 0;
      await runJobs(work, () => {
        ranges = (JSON.parse(readFileSync(join(work, "chunk-plan.json"), "utf8")) as { inputs: { ranges: unknown[] }[] }).inputs[0].ranges.length;
      });
      expect(ranges).toBeGreaterThan(3);
      expect(methodOutputs(out), method).toEqual(methodOutputs(local));
      expect((await vertdupAsync(["slurm", "status", "-w", work])).stdout).toMatch(new RegExp(`^method +${method}\nplan +1/1 done\nfeatures +${ranges}/${ranges} done\n`));
    }
  }, 600_000);

  it.each([
    { task: "features", name: "exact", options: ["--method", "exact", "--chunk-size", "300000"] },
    { task: "count", name: "lsh-cosine", options: OPTIONS },
  ])("a $task task ($name) refuses an input changed since the plan was made", async ({ task, name, options }) => {
    const copy = join(root, `copy-${name}.vert`);
    writeFileSync(copy, readFileSync(corpus));
    const work = join(root, `w-changed-${name}`);
    expect((await vertdupAsync(["slurm", "run", copy, "-w", work, "-o", join(root, `o-${name}`), "--tasks", "2", ...options, "--dry-run"])).status).toBe(0);
    expect((await runTask(work, "plan", 0, 1)).status).toBe(0);
    const later = new Date(Date.now() + 5000);
    utimesSync(copy, later, later);
    const result = await runTask(work, task, 0, 2);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${copy}: the input changed since its chunks were planned (${join(work, "chunk-plan.json")}): the run cannot continue on it`);
  }, 120_000);
});
