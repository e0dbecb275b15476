import { cpSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexContent } from "../../src/workdir/index-store.js";
import { writeBatches } from "../helpers/batches.js";
import { removeTempDirs, tempDir, vertdup, vertdupAsync, type CliResult } from "../helpers/cli.js";
import { active, jobIds, lockToken, slurmUnavailable, waitFor } from "../helpers/slurm.js";

afterAll(removeTempDirs);

// An index records its batches' dates: fixed (index-store.ts), so that the local update and the
// Slurm one give the same bytes. The submitting vertdup passes it on to its jobs (sbatch --export=ALL).
beforeAll(() => {
  process.env.SOURCE_DATE_EPOCH = "1700000000";
});
afterAll(() => {
  delete process.env.SOURCE_DATE_EPOCH;
});

const LSH = ["--iterations", "20", "--iterations-per-group", "5"];
const MINHASH = ["--method", "minhash", "--shingle-size", "3", "--chunk-size", "4096"];
// Other than the defaults, so that they are seen to reach the jobs; several chunks per array task.
const PARAGRAPHS = ["--ngram", "5", "--threshold", "0.4", "--chunk-size", "4096"];
const SLURM = ["--tasks", "2", "--cpus-per-task", "1"];

function ok(r: CliResult): CliResult {
  expect(r.status, r.stderr).toBe(0);
  return r;
}

/** A run's outputs (lsh-cosine or a set method); the manifest without its date and timings. */
function runOutputs(dir: string): Record<string, unknown> {
  const { created: _, phases: __, ...manifest } = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Record<string, unknown>;
  return { ...Object.fromEntries(["pairs.tsv", "clusters.tsv", "groups.tsv"].map((f) => [f, readFileSync(join(dir, f), "utf8")])), manifest };
}

/** The paragraph output and its report, without the report's timings and output path. */
function paragraphOutputs(output: string): Record<string, unknown> {
  const { phases: _, output: __, ...report } = JSON.parse(readFileSync(`${output}.report.json`, "utf8")) as Record<string, unknown>;
  return { output: readFileSync(output, "utf8"), report };
}

interface Supplemented {
  dir: string;
  batch: string;
  index: string;
  /** The local run's -o (an output directory, or the paragraph output file). */
  local: string;
  /** The index after the local update. */
  updated: Map<string, Buffer>;
}

/**
 * An index of a base batch and a second batch with copies of its documents; the second batch
 * run locally with `--against index --update`, then the index put back as it was, so that
 * the Slurm submission updates the same index at the same path (the outputs name it).
 */
async function supplemented(base: string[], batch: string[]): Promise<Supplemented> {
  const dir = tempDir();
  const [first, second] = writeBatches(dir, [60, 30]);
  const index = join(dir, "index");
  ok(vertdup([...base, first, "-w", index]));
  const before = join(dir, "index-before");
  cpSync(index, before, { recursive: true });
  const local = join(dir, "local");
  ok(await vertdupAsync([...batch, second, "--against", index, "--update", "-o", local]));
  const updated = await indexContent(index);
  rmSync(index, { recursive: true });
  cpSync(before, index, { recursive: true });
  return { dir, batch: second, index, local, updated };
}

const lshIndexed = () => supplemented(["run", "-o", tempDir(), "--quiet", ...LSH], ["run", "--quiet", ...LSH]);
const minhashIndexed = () => supplemented(["run", "-o", tempDir(), "--quiet", ...MINHASH], ["run", "--quiet", ...MINHASH]);
const paragraphsIndexed = () => supplemented(["paragraphs", "-o", join(tempDir(), "base.vert"), "--quiet", ...PARAGRAPHS], ["paragraphs", "--quiet", ...PARAGRAPHS]);

const task = (work: string, step: string, slice: string[] = []) => vertdupAsync(["task", step, "-w", work, ...slice, "--token", lockToken(work)]);

/** A job's task killed (SIGKILL) at a kill point of the index update (util/kill-point.ts). */
async function killedTask(work: string, step: string, point: string): Promise<void> {
  process.env.VERTDUP_FAULT = `kill:${point}`;
  try {
    expect((await task(work, step)).status).toBe(null);
  } finally {
    delete process.env.VERTDUP_FAULT;
  }
}

const scripts = (work: string) => readdirSync(join(work, "slurm")).filter((f) => f.endsWith(".sbatch"));

// The jobs' commands run by hand, as the batch scripts run them: no cluster needed.
describe("slurm --against --update, the jobs run by hand", () => {
  // The kill point: every file of the update written, not committed.
  it.each([
    ["lsh-cosine", lshIndexed, LSH, "update-files"],
    ["minhash", minhashIndexed, MINHASH, "index:before-commit"],
  ] as const)("%s: one supplement job writes the local run's outputs and updated index, byte for byte; killed before the commit, it leaves the index as it was; submitted again after it finished, it runs nothing", async (method, indexed, options, killPoint) => {
    const s = await indexed();
    const work = join(s.dir, "w");
    const submit = (out: string) => vertdup(["slurm", "run", s.batch, "--against", s.index, "--update", "-w", work, "-o", out, ...SLURM, ...options, "--dry-run"]);
    const out = join(s.dir, "slurm");
    expect(ok(submit(out)).stderr).toBe("");
    expect(scripts(work)).toEqual(["1-supplement.sbatch"]);
    const before = await indexContent(s.index);
    expect(before).not.toEqual(s.updated);
    // Killed before the commit: the index is as it was; the job run again appends.
    await killedTask(work, "supplement", killPoint);
    expect(await indexContent(s.index)).toEqual(before);
    ok(await task(work, "supplement"));
    expect(runOutputs(out)).toEqual(runOutputs(s.local));
    expect(await indexContent(s.index)).toEqual(s.updated);
    expect(vertdup(["slurm", "status", "-w", work]).stdout).toBe(`method     ${method}\nsupplement 1/1 done\nno job of this run is queued or running\n`);

    // Submitted again after it finished, even with another -o: nothing runs, the batch is not appended twice.
    const again = join(s.dir, "again");
    ok(submit(again));
    ok(await task(work, "supplement"));
    expect(readdirSync(again)).toEqual([]);
    expect(await indexContent(s.index)).toEqual(s.updated);
  }, 120_000);

  it("paragraphs: the append job appends the batch as the local run does, byte for byte; killed before the commit, it leaves the index as it was; an input the index holds is refused at submission", async () => {
    const s = await paragraphsIndexed();
    const work = join(s.dir, "w");
    const output = join(s.dir, "slurm.vert");
    const args = ["slurm", "paragraphs", s.batch, "--against", s.index, "--update", "-w", work, "-o", output, ...SLURM, ...PARAGRAPHS, "--dry-run"];
    expect(ok(vertdup(args)).stderr).toBe("");
    expect(scripts(work)).toEqual(["1-ngrams.sbatch", "2-repeats.sbatch", "3-output.sbatch", "4-index.sbatch", "5-append.sbatch"]);
    for (const index of ["0", "1"]) ok(await task(work, "ngrams", ["--index", index, "--count", "2"]));
    const before = await indexContent(s.index);
    expect(before).not.toEqual(s.updated);
    for (const step of ["repeats", "output", "index"]) ok(await task(work, step));
    // Killed with the batch's keys written but not committed: the index is as it was; the job run again appends.
    await killedTask(work, "append", "paragraphs-before-commit");
    expect(await indexContent(s.index)).toEqual(before);
    ok(await task(work, "append"));
    expect(paragraphOutputs(output)).toEqual(paragraphOutputs(s.local));
    expect(await indexContent(s.index)).toEqual(s.updated);

    const again = vertdup(args);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(`${s.batch} has the same bytes as ${s.batch}, batch 1 of ${s.index}`);
    expect(again.stderr).toContain("refusing to append it again");
    expect(await indexContent(s.index)).toEqual(s.updated);
  }, 120_000);
});

const reason = slurmUnavailable();
if (reason !== null) console.warn(`Slurm --against tests skipped: ${reason}`);

describe.skipIf(reason !== null)("slurm --against --update on a real Slurm cluster", () => {
  const submit = async (work: string, args: string[]) => {
    const r = vertdup(args);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    await waitFor(() => !active(jobIds(work)), 240);
  };

  it("lsh-cosine and paragraphs: the outputs and the updated index are the local runs', byte for byte", async () => {
    const lsh = await lshIndexed();
    const out = join(lsh.dir, "slurm");
    await submit(join(lsh.dir, "w"), ["slurm", "run", lsh.batch, "--against", lsh.index, "--update", "-w", join(lsh.dir, "w"), "-o", out, ...SLURM, ...LSH]);
    expect(runOutputs(out)).toEqual(runOutputs(lsh.local));
    expect(await indexContent(lsh.index)).toEqual(lsh.updated);

    const para = await paragraphsIndexed();
    const output = join(para.dir, "slurm.vert");
    await submit(join(para.dir, "w"), ["slurm", "paragraphs", para.batch, "--against", para.index, "--update", "-w", join(para.dir, "w"), "-o", output, ...SLURM, ...PARAGRAPHS]);
    expect(paragraphOutputs(output)).toEqual(paragraphOutputs(para.local));
    expect(await indexContent(para.index)).toEqual(para.updated);
  }, 400_000);
});
