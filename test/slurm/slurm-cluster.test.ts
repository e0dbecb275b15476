import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeBatches } from "../helpers/batches.js";
import { removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";
import { active, jobIds, slurmUnavailable, waitFor } from "../helpers/slurm.js";

afterAll(removeTempDirs);

const reason = slurmUnavailable();
if (reason !== null) console.warn(`Slurm end-to-end tests skipped: ${reason}`);

const CORPUS = "data-samples/kjv-3000.vert.gz";
const OPTIONS = ["--iterations", "30", "--iterations-per-group", "5"];
const SLURM = ["--tasks", "3", "--cpus-per-task", "1", ...OPTIONS];

function outputs(dir: string): string[] {
  return ["pairs.tsv", "clusters.tsv"].map((f) => readFileSync(join(dir, f), "utf8"));
}

describe.skipIf(reason !== null)("vertdup slurm run on a real Slurm cluster", () => {
  const local = tempDir();

  it("equals a local run byte for byte", async () => {
    expect(vertdup(["run", CORPUS, "-o", local, "--quiet", ...OPTIONS]).status).toBe(0);
    // sbatch reads the #SBATCH lines and bash the commands: neither may split or expand the path.
    const work = join(tempDir(), `w d$HOME'q"%x`);
    const out = tempDir();
    const r = vertdup(["slurm", "run", CORPUS, "-w", work, "-o", out, ...SLURM]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/submitted: plan \d+, count \d+, vocabulary \d+, sign \d+, merge \d+, pleb \d+, output \d+, index \d+/);
    await waitFor(() => !active(jobIds(work)), 240);
    const status = vertdup(["slurm", "status", "-w", work]);
    expect(status.stdout).toMatch(/^method +lsh-cosine\nplan +1\/1 done\ncount +\d+\/\d+ done\n(.|\n)*pleb +6\/6 done\noutput +1\/1 done\nindex +1\/1 done\nno job of this run is queued or running/);
    expect(outputs(out)).toEqual(outputs(local));
  }, 300_000);

  it("calibrates with --estimate-recall in a job after the outputs, as a local run does", async () => {
    const here = tempDir();
    const recall = ["--estimate-recall", "--sample", "500"];
    expect(vertdup(["run", CORPUS, "-o", here, "--quiet", ...OPTIONS, ...recall]).status).toBe(0);
    const work = join(tempDir(), "w");
    const out = tempDir();
    const r = vertdup(["slurm", "run", CORPUS, "-w", work, "-o", out, ...SLURM, ...recall]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/submitted: plan \d+, count \d+, vocabulary \d+, sign \d+, merge \d+, pleb \d+, output \d+, calibrate \d+/);
    await waitFor(() => !active(jobIds(work)), 300);
    for (const f of ["calibration.tsv", "clusters.tsv", "pairs.tsv"]) expect(readFileSync(join(out, f), "utf8"), f).toBe(readFileSync(join(here, f), "utf8"));
    // pleb-log.tsv but its seconds: the sampled recall after each group, as the local run logged it.
    const log = (dir: string) => readFileSync(join(dir, "pleb-log.tsv"), "utf8").split("\n").map((l) => l.split("\t").filter((_, k) => k !== 3));
    expect(log(out)).toEqual(log(here));
    expect(log(out)[0]).toContain("recall_low");
    const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    expect(manifest(out).calibration).toEqual(manifest(here).calibration);
    expect(manifest(out).recallEstimate).toEqual(manifest(here).recallEstimate);
    expect(manifest(out).calibration.sampling).toBe("stratified");
    // The report is written by the calibrate job, after calibration.tsv.
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain('<section id="calibration">');
    // The run's lock went with its last job: the work directory can be submitted again.
    expect(existsSync(join(work, "vertdup.lock"))).toBe(false);
  }, 400_000);

  it("resumes after the job array is cancelled midway", async () => {
    const work = join(tempDir(), "w");
    const out = tempDir();
    const args = ["slurm", "run", CORPUS, "-w", work, "-o", out, ...SLURM];
    expect(vertdup(args).status).toBe(0);
    const markers = () => (existsSync(join(work, "markers")) ? readdirSync(join(work, "markers")) : []);
    await waitFor(() => markers().some((m) => m.startsWith("count-")), 120);
    expect(spawnSync("scancel", jobIds(work)).status).toBe(0);
    await waitFor(() => !active(jobIds(work)), 60);
    expect(existsSync(join(out, "pairs.tsv"))).toBe(false);
    const doneBefore = markers().length;
    expect(vertdup(args).status).toBe(0);
    await waitFor(() => !active(jobIds(work)), 240);
    expect(markers().length).toBeGreaterThan(doneBefore);
    expect(outputs(out)).toEqual(outputs(local));
  }, 400_000);
});

/** The outputs of a method's run: every file but the report, the manifest without its dates and timings. */
function methodOutputs(dir: string): Record<string, unknown> {
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Record<string, unknown>;
  delete manifest.created;
  delete manifest.phases;
  return { ...Object.fromEntries(["pairs.tsv", "clusters.tsv", "groups.tsv"].map((f) => [f, readFileSync(join(dir, f), "utf8")])), manifest };
}

/** Each method with options other than its defaults, so that they are seen to reach the tasks. */
const METHODS: [string, string[]][] = [
  ["exact", ["--keep", "first"]],
  ["simhash384", ["--max-distance", "7"]],
  ["minhash", ["--shingle-size", "3", "--threshold", "0.7", "--bands", "20", "--rows", "5", "--pairs", "all"]],
  ["paragraphs", ["--short-tokens", "5", "--threshold", "0.6"]],
];

describe.skipIf(reason !== null)("vertdup slurm run --method on a real Slurm cluster", () => {
  // Absolute, as the Slurm run names its inputs in the manifest.
  const corpus = resolve(CORPUS);
  // 1 MiB chunks: six features tasks, more than the three array tasks.
  const runs = METHODS.map(([method, options]) => ({ method, options: ["--method", method, "--chunk-size", "1048576", ...options], local: tempDir(), work: join(tempDir(), "w"), out: tempDir() }));

  it("equals a local run of each method byte for byte", async () => {
    for (const r of runs) expect(vertdup(["run", corpus, "-o", r.local, "--quiet", ...r.options]).status).toBe(0);
    // Submitted side by side: the cluster runs them as it has room.
    for (const r of runs) {
      const submitted = vertdup(["slurm", "run", corpus, "-w", r.work, "-o", r.out, "--tasks", "3", "--cpus-per-task", "1", ...r.options]);
      expect(submitted.stderr).toBe("");
      expect(submitted.stdout).toMatch(/submitted: plan \d+, features \d+, search \d+/);
    }
    await waitFor(() => runs.every((r) => !active(jobIds(r.work))), 400);
    for (const r of runs) {
      expect(vertdup(["slurm", "status", "-w", r.work]).stdout).toMatch(new RegExp(`^method +${r.method}\nplan +1/1 done\nfeatures +6/6 done\nsearch +1/1 done\noutput +1/1 done\nindex +1/1 done\nno job of this run is queued or running\n$`));
      expect(methodOutputs(r.out)).toEqual(methodOutputs(r.local));
    }
  }, 500_000);

  it("reads a plain input's planned ranges in the features tasks, and equals a local run", async () => {
    const plain = join(tempDir(), "kjv-3000.vert");
    writeFileSync(plain, gunzipSync(readFileSync(CORPUS)));
    const options = ["--method", "exact", "--chunk-size", "300000"];
    const local = tempDir();
    expect(vertdup(["run", plain, "-o", local, "--quiet", ...options]).status).toBe(0);
    const work = join(tempDir(), "w");
    const out = tempDir();
    const submitted = vertdup(["slurm", "run", plain, "-w", work, "-o", out, "--tasks", "3", "--cpus-per-task", "1", ...options]);
    expect(submitted.stderr).toBe("");
    await waitFor(() => !active(jobIds(work)), 240);
    const plan = JSON.parse(readFileSync(join(work, "chunk-plan.json"), "utf8")) as { inputs: { path: string; ranges: unknown[] }[] };
    expect(plan.inputs[0].path).toBe(plain);
    const chunks = plan.inputs[0].ranges.length;
    expect(vertdup(["slurm", "status", "-w", work]).stdout).toMatch(new RegExp(`^method +exact\nplan +1/1 done\nfeatures +${chunks}/${chunks} done\nsearch +1/1 done\noutput +1/1 done\nindex +1/1 done\n`));
    expect(methodOutputs(out)).toEqual(methodOutputs(local));
  }, 300_000);

  it("resumes: a re-submission runs only the features tasks not done", async () => {
    const r = runs[2];
    const markers = join(r.work, "markers");
    const kept = statSync(join(markers, "features-000000.done")).mtimeMs;
    // As if the run had been cut during the features array: a task and the steps after it not done.
    for (const m of readdirSync(markers).filter((m) => ["features-000004.done", "search.done", "output.done", "index.done"].includes(m))) rmSync(join(markers, m));
    rmSync(r.out, { recursive: true });
    expect(vertdup(["slurm", "run", corpus, "-w", r.work, "-o", r.out, "--tasks", "3", "--cpus-per-task", "1", ...r.options]).status).toBe(0);
    await waitFor(() => !active(jobIds(r.work)), 240);
    expect(statSync(join(markers, "features-000000.done")).mtimeMs).toBe(kept);
    expect(existsSync(join(markers, "features-000004.done"))).toBe(true);
    expect(methodOutputs(r.out)).toEqual(methodOutputs(r.local));
  }, 300_000);
});

describe.skipIf(reason !== null)("vertdup slurm run --method simhash384|minhash|paragraphs --estimate-recall on a real Slurm cluster", () => {
  it("calibrates in a job of its own: calibration.tsv and the manifest's calibration as a local run's", async () => {
    const corpus = resolve(CORPUS);
    const recall = ["--estimate-recall", "--sample", "300", "--max-width", "0.05", "--max-sample", "900"];
    const runs = METHODS.slice(1).map(([method, options]) => ({ options: ["--method", method, ...options, ...recall], local: tempDir(), work: join(tempDir(), "w"), out: tempDir() }));
    for (const r of runs) {
      const local = vertdup(["run", corpus, "-o", r.local, "--quiet", ...r.options]);
      expect(local.status, local.stderr).toBe(0);
      const submitted = vertdup(["slurm", "run", corpus, "-w", r.work, "-o", r.out, "--tasks", "3", "--cpus-per-task", "1", ...r.options]);
      expect(submitted.status, submitted.stderr).toBe(0);
      expect(submitted.stdout).toMatch(/submitted: plan \d+, features \d+, search \d+, output \d+, calibrate \d+, index \d+/);
    }
    await waitFor(() => runs.every((r) => !active(jobIds(r.work))), 400);
    for (const r of runs) {
      expect(readFileSync(join(r.out, "calibration.tsv"), "utf8")).toBe(readFileSync(join(r.local, "calibration.tsv"), "utf8"));
      expect(methodOutputs(r.out)).toEqual(methodOutputs(r.local));
      const calibration = (methodOutputs(r.out).manifest as { calibration: { sampledDocuments: number; growth: { batches: number[] } } }).calibration;
      expect(calibration.growth.batches[0]).toBe(300);
      expect(calibration.sampledDocuments).toBe(calibration.growth.batches.at(-1));
    }
  }, 500_000);

  it("refuses exact (it needs no calibration), saying why", () => {
    const r = vertdup(["slurm", "run", CORPUS, "-w", join(tempDir(), "w"), "-o", tempDir(), "--method", "exact", "--estimate-recall"]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("--method exact needs no calibration");
  });
});

describe.skipIf(reason !== null)("vertdup slurm run --method --against on a real Slurm cluster", () => {
  const dir = tempDir();
  const [base, batch1, batch2] = writeBatches(dir, [60, 30, 30]);
  const options = ["--method", "minhash", "--shingle-size", "3", "--chunk-size", "4096"];
  const slurm = ["--tasks", "2", "--cpus-per-task", "1"];
  const index = join(dir, "index");
  const local = (out: string, ...args: string[]) => {
    const r = vertdup(["run", ...args, "-o", out, "--quiet", ...options]);
    expect(r.status, r.stderr).toBe(0);
  };
  const submit = async (work: string, out: string, ...args: string[]) => {
    const r = vertdup(["slurm", "run", ...args, "-w", work, "-o", out, ...slurm, ...options]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    await waitFor(() => !active(jobIds(work)), 240);
  };

  it("compares a batch with an index, and --update appends it once, as run does", async () => {
    local(join(dir, "base-out"), base, "-w", index);
    const [mine, theirs] = [tempDir(), tempDir()];
    local(theirs, batch1, "--against", index);
    await submit(join(dir, "w1"), mine, batch1, "--against", index);
    expect(methodOutputs(mine)).toEqual(methodOutputs(theirs));

    // The same update locally on a copy of the index: then batch 2 against each gives the same, but for the index's name.
    const copy = join(dir, "index-copy");
    cpSync(index, copy, { recursive: true });
    local(tempDir(), batch1, "--against", copy, "--update", "-w", join(dir, "wl"));
    const work = join(dir, "w2");
    await submit(work, tempDir(), batch1, "--against", index, "--update");
    // Submitted again after it finished, even with another -o: nothing runs again, the batch is not appended twice.
    const again = tempDir();
    await submit(work, again, batch1, "--against", index, "--update");
    expect(readdirSync(again)).toEqual([]);
    expect((JSON.parse(readFileSync(join(index, "index.json"), "utf8")) as { batches: unknown[]; documents: number })).toMatchObject({ documents: 90, batches: [{}, {}] });
    const [after, afterCopy] = [tempDir(), tempDir()];
    local(after, batch2, "--against", index);
    local(afterCopy, batch2, "--against", copy);
    // The files name their index: the manifest's sizes and checksums of them differ with its path, the rest is compared.
    const named = (d: string, from: string) => {
      const { manifest, ...files } = methodOutputs(d);
      const { files: _, ...rest } = manifest as Record<string, unknown>;
      return JSON.parse(JSON.stringify({ ...files, manifest: rest }).replaceAll(from, index)) as unknown;
    };
    expect(named(after, index)).toEqual(named(afterCopy, copy));
    expect(readFileSync(join(after, "clusters.tsv"), "utf8")).toContain(index);
  }, 600_000);
});

describe.skipIf(reason !== null)("vertdup slurm paragraphs on a real Slurm cluster", () => {
  // Absolute, as the Slurm submission names its inputs in the report.
  const corpus = resolve(CORPUS);
  const earlier = resolve("data-samples/sample.vert.gz");
  // Other than the defaults, so that they are seen to reach the tasks; many chunks per slice.
  const options = ["--ngram", "5", "--threshold", "0.4", "--max-stub", "10", "--chunk-size", "100000"];
  const slurm = ["--tasks", "3", "--cpus-per-task", "1"];
  const dir = tempDir();
  const index = join(dir, "index");
  const local = join(dir, "local.vert");
  const report = (output: string) => {
    const { phases: _, output: __, ...rest } = JSON.parse(readFileSync(`${output}.report.json`, "utf8")) as Record<string, unknown>;
    return rest;
  };

  it("equals a local run against an index byte for byte, and slurm status shows its phases", async () => {
    expect(vertdup(["paragraphs", earlier, "-o", join(dir, "earlier.vert"), "-w", index, "--quiet", ...options]).status).toBe(0);
    expect(vertdup(["paragraphs", corpus, "-o", local, "--against", index, "--quiet", ...options]).status).toBe(0);
    const work = join(dir, "w");
    const output = join(dir, "slurm.vert");
    const r = vertdup(["slurm", "paragraphs", corpus, "-w", work, "-o", output, "--against", index, ...slurm, ...options]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^submitted: ngrams \d+, repeats \d+, output \d+, index \d+\n/);
    await waitFor(() => !active(jobIds(work)), 300);
    expect(vertdup(["slurm", "status", "-w", work]).stdout).toMatch(/^command +paragraphs\nngrams +(\d+)\/\1 done\nrepeats +(\d+)\/\2 done\noutput +1\/1 done\nindex +1\/1 done\nno job of this run is queued or running\n$/);
    expect(readFileSync(output)).toEqual(readFileSync(local));
    expect(report(output)).toEqual(report(local));
  }, 400_000);

  it("resumes after the job array is cancelled midway", async () => {
    const work = join(dir, "w-cancelled");
    const output = join(dir, "resumed.vert");
    const args = ["slurm", "paragraphs", corpus, "-w", work, "-o", output, "--against", index, ...slurm, ...options];
    expect(vertdup(args).status).toBe(0);
    const ngramMarkers = () => (existsSync(join(work, "markers")) ? readdirSync(join(work, "markers")).filter((m) => m.startsWith("paragraphs-ngrams-")) : []);
    await waitFor(() => ngramMarkers().length > 0, 120);
    expect(spawnSync("scancel", jobIds(work)).status).toBe(0);
    await waitFor(() => !active(jobIds(work)), 60);
    expect(existsSync(output)).toBe(false);
    // That finished chunks are not scanned again is seen in slurm-paragraphs.test.ts (the tasks run by hand).
    const again = vertdup(args);
    expect(again.status, again.stderr).toBe(0);
    await waitFor(() => !active(jobIds(work)), 300);
    expect(readFileSync(output)).toEqual(readFileSync(local));
  }, 400_000);
});
