import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

afterAll(removeTempDirs);

/** Why the Slurm tests cannot run here, or null when a cluster answers. */
function slurmUnavailable(): string | null {
  const sinfo = spawnSync("sinfo", ["-h", "-o", "%T"], { encoding: "utf8" });
  if (sinfo.error !== undefined) return "sinfo is not installed (scripts/slurm/test-cluster.sh install && start)";
  if (sinfo.status !== 0) return `no Slurm controller answers (sinfo: ${sinfo.stderr.trim()})`;
  if (!/idle|mixed|alloc/.test(sinfo.stdout)) return `no usable Slurm node (sinfo: ${sinfo.stdout.trim()})`;
  return null;
}

const reason = slurmUnavailable();
if (reason !== null) console.warn(`Slurm end-to-end tests skipped: ${reason}`);

const CORPUS = "data-samples/kjv-3000.vert.gz";
const OPTIONS = ["--iterations", "30", "--iterations-per-group", "5"];
const SLURM = ["--tasks", "3", "--cpus-per-task", "1", ...OPTIONS];

function jobIds(workdir: string): string[] {
  return Object.values(JSON.parse(readFileSync(join(workdir, "slurm", "jobs.json"), "utf8")) as Record<string, string>);
}

function active(ids: string[]): boolean {
  const q = spawnSync("squeue", ["-h", "-o", "%F", "-j", ids.join(",")], { encoding: "utf8" });
  return q.status === 0 && q.stdout.trim().length > 0;
}

async function waitFor(condition: () => boolean, seconds: number): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`still waiting after ${seconds} s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

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
    expect(r.stdout).toMatch(/submitted: count \d+, vocabulary \d+, sign \d+, merge \d+, pleb \d+, output \d+/);
    await waitFor(() => !active(jobIds(work)), 240);
    const status = vertdup(["slurm", "status", "-w", work]);
    expect(status.stdout).toMatch(/pleb +6\/6 done\noutput +done\nno job of this run is queued or running/);
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
    expect(r.stdout).toMatch(/submitted: count \d+, vocabulary \d+, sign \d+, merge \d+, pleb \d+, output \d+, calibrate \d+/);
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
