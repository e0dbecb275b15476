import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir, vertdup, vertdupAsync } from "../helpers/cli.js";

afterAll(removeTempDirs);

const CORPUS = "data-samples/sample.vert.gz";
// Several chunks, so that the steps have several tasks.
const COMMON = ["--chunk-size", "40000", "--workers", "2", "--quiet"];

/** A job as a user runs it: the command line with -o and -w, and the files it writes. */
interface Job {
  name: string;
  run: (out: string, work: string) => string[];
  /** The same submitted to Slurm (`--dry-run`), whose batch scripts name the pipeline's steps. */
  submit: (out: string, work: string) => string[];
  outputs: (out: string) => string[];
}

const runJob = (method: string, files = ["pairs.tsv", "clusters.tsv", "groups.tsv"]): Job => ({
  name: `run --method ${method}`,
  run: (out, work) => ["run", CORPUS, "--method", method, "-o", out, "-w", work, "--no-report", ...COMMON],
  submit: (out, work) => ["slurm", "run", CORPUS, "--method", method, "-o", out, "-w", work, "--dry-run"],
  outputs: (out) => files.map((f) => join(out, f)),
});

const JOBS: Job[] = [
  runJob("lsh-cosine", ["pairs.tsv", "clusters.tsv", "groups.tsv", "pleb-log.tsv"]),
  ...["minhash", "simhash384", "exact", "paragraphs"].map((method) => runJob(method)),
  {
    name: "paragraphs",
    run: (out, work) => ["paragraphs", CORPUS, "-o", join(out, "out.vert"), "-w", work, "--report", join(out, "report.json"), ...COMMON],
    submit: (out, work) => ["slurm", "paragraphs", CORPUS, "-o", join(out, "out.vert"), "-w", work, "--dry-run"],
    outputs: (out) => [join(out, "out.vert")],
  },
];

/** The steps a local run executes: the Slurm jobs of the same pipeline, without those only slices need (the chunk plan). */
function localSteps(job: Job): string[] {
  const work = join(tempDir(), "w");
  const r = vertdup(job.submit(tempDir(), work));
  expect(r.status, r.stderr).toBe(0);
  const steps = readdirSync(join(work, "slurm")).filter((f) => f.endsWith(".sbatch")).sort((a, b) => parseInt(a) - parseInt(b));
  return steps.map((f) => f.replace(/^\d+-|\.sbatch$/g, "")).filter((s) => s !== "plan");
}

/** Every file of the work directory with its inode and modification time: a rewrite changes one or the other. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const s = statSync(p);
        out.push(`${relative(dir, p)} ${s.ino} ${s.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return out.sort();
}

/** The outputs' bytes; pleb-log.tsv without its seconds column (a timing). */
const contents = (files: string[]) =>
  files.map((f) => {
    const text = readFileSync(f, "utf8");
    return f.endsWith("pleb-log.tsv") ? text.replace(/^([^\t]*\t[^\t]*\t[^\t]*)\t[^\t\n]*/gm, "$1") : text;
  });

describe.each(JOBS)("$name: SIGKILL after any step, then --resume", (job) => {
  it("gives the uninterrupted run's outputs, and a resume of the finished run rewrites no work file", async () => {
    const reference = tempDir();
    const whole = await vertdupAsync(job.run(reference, join(tempDir(), "w")));
    expect(whole.status, whole.stderr).toBe(0);
    const steps = localSteps(job);
    expect(steps.length).toBeGreaterThan(1);
    for (const step of steps) {
      const out = tempDir();
      const work = join(tempDir(), "w");
      const killed = await vertdupAsync(job.run(out, work), undefined, { VERTDUP_FAULT: `kill:step:${step}` });
      expect(killed.signal, `${step}: ${killed.stderr}`).toBe("SIGKILL");
      const resumed = await vertdupAsync([...job.run(out, work), "--resume"]);
      expect(resumed.status, `${step}: ${resumed.stderr}`).toBe(0);
      expect(contents(job.outputs(out)), step).toEqual(contents(job.outputs(reference)));
      const before = snapshot(work);
      const again = await vertdupAsync([...job.run(out, work), "--resume"]);
      expect(again.status, again.stderr).toBe(0);
      expect(snapshot(work), `after ${step}: a resume of the finished run rewrote work files`).toEqual(before);
      expect(contents(job.outputs(out)), step).toEqual(contents(job.outputs(reference)));
    }
  }, 240_000);
});
