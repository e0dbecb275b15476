import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir, vertdup, vertdupAsync } from "../helpers/cli.js";

afterAll(removeTempDirs);

// Absolute, as the Slurm submission names its inputs in the report.
const CORPUS = resolve("data-samples/kjv-3000.vert.gz");
// Other than the defaults, so that they are seen to reach the tasks; several chunks per slice.
const OPTIONS = ["--ngram", "5", "--threshold", "0.4", "--count", "tokens-any", "--chunk-size", "300000"];

/** The report without its timings and output path. */
function reportOf(output: string): Record<string, unknown> {
  const { phases: _, output: __, ...rest } = JSON.parse(readFileSync(`${output}.report.json`, "utf8")) as Record<string, unknown>;
  return rest;
}

const token = (work: string) => (JSON.parse(readFileSync(join(work, "vertdup.lock"), "utf8")) as { token: string }).token;
const task = (work: string, step: string, slice: string[] = []) => vertdupAsync(["task", step, "-w", work, ...slice, "--token", token(work)]);
const ngramFiles = (work: string) => readdirSync(join(work, "paragraph-steps")).filter((n) => n.endsWith(".ngrams")).sort();
const mtimes = (work: string, names: readonly string[]) => names.map((n) => statSync(join(work, "paragraph-steps", n)).mtimeMs);

// The jobs' commands run by hand, as the batch scripts run them: no cluster needed.
describe("vertdup slurm paragraphs, its tasks run by hand", () => {
  const root = tempDir();
  const local = join(root, "local.vert");

  it("writes the n-gram array and the repeats, output and index jobs; the tasks resume and write the local run's output byte for byte", async () => {
    expect((await vertdupAsync(["paragraphs", CORPUS, "-o", local, "--quiet", ...OPTIONS])).status).toBe(0);
    const work = join(root, "w");
    const output = join(root, "slurm.vert");
    const submit = ["slurm", "paragraphs", CORPUS, "-w", work, "-o", output, "--tasks", "3", "--cpus-per-task", "1", ...OPTIONS, "--dry-run"];
    const r = vertdup(submit);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(readdirSync(join(work, "slurm")).filter((f) => f.endsWith(".sbatch"))).toEqual(["1-ngrams.sbatch", "2-repeats.sbatch", "3-output.sbatch", "4-index.sbatch"]);
    expect(readFileSync(join(work, "slurm", "1-ngrams.sbatch"), "utf8")).toMatch(/#SBATCH --array=0-2\n/);

    expect((await task(work, "ngrams", ["--index", "0", "--count", "3"])).status).toBe(0);
    const first = ngramFiles(work);
    const chunks = (JSON.parse(readFileSync(join(work, "paragraph-steps", "chunks.json"), "utf8")) as { chunks: number }).chunks;
    expect(first.length).toBe(Math.ceil(chunks / 3));
    expect(vertdup(["slurm", "status", "-w", work]).stdout).toBe(`command    paragraphs\nngrams     ${first.length}/${chunks}\nrepeats    0/?\noutput     0/1\nindex      0/1\nno job of this run is queued or running\n`);

    // Submitted again with the same options: the slice's chunks are kept and not scanned again.
    const before = mtimes(work, first);
    expect(vertdup(submit).status).toBe(0);
    expect((await task(work, "ngrams", ["--index", "0", "--count", "3"])).status).toBe(0);
    expect(mtimes(work, first)).toEqual(before);
    for (const index of ["1", "2"]) expect((await task(work, "ngrams", ["--index", index, "--count", "3"])).status).toBe(0);
    expect(ngramFiles(work).length).toBe(chunks);
    expect(mtimes(work, first)).toEqual(before);

    for (const step of ["repeats", "output", "index"]) {
      const r = await task(work, step);
      expect(r.status, r.stderr).toBe(0);
    }
    expect(readFileSync(output)).toEqual(readFileSync(local));
    expect(reportOf(output)).toEqual(reportOf(local));
    // Memory mode: the 256 bucket tables in 16 tasks.
    expect(vertdup(["slurm", "status", "-w", work]).stdout).toBe(`command    paragraphs\nngrams     ${chunks}/${chunks} done\nrepeats    16/16 done\noutput     1/1 done\nindex      1/1 done\nno job of this run is queued or running\n`);
    // The last job ends the run: its lock goes; the work directory is an index of the inputs' n-grams.
    expect(existsSync(join(work, "vertdup.lock"))).toBe(false);
    expect(existsSync(join(work, "index.json"))).toBe(true);
    expect(existsSync(join(work, "paragraph-steps"))).toBe(false);
  }, 300_000);

  it("refuses a re-submission with other options, keeping the work done; after a finished run, starts over", async () => {
    const work = join(root, "w2");
    const output = join(root, "other.vert");
    const submit = (ngram: string) => vertdupAsync(["slurm", "paragraphs", CORPUS, "-w", work, "-o", output, "--tasks", "2", "--chunk-size", "300000", "--ngram", ngram, "--dry-run"]);
    expect((await submit("5")).status).toBe(0);
    expect((await task(work, "ngrams", ["--index", "0", "--count", "2"])).status).toBe(0);
    const saved = ngramFiles(work);
    expect(saved.length).toBeGreaterThan(0);
    const other = await submit("6");
    expect(other.status).toBe(1);
    expect(other.stderr).toContain(`${work}: refusing to resume: the work directory was made with other --ngram (5 there, 6 now)`);
    expect(ngramFiles(work)).toEqual(saved);
    expect((await task(work, "ngrams", ["--index", "1", "--count", "2"])).status).toBe(0);
    for (const step of ["repeats", "output", "index"]) expect((await task(work, step)).status).toBe(0);
    // A finished run leaves an index and nothing to resume: a submission with other options runs anew.
    expect((await submit("6")).status).toBe(0);
    expect(existsSync(join(work, "paragraph-steps"))).toBe(true);
    expect(ngramFiles(work)).toEqual([]);
    expect(readdirSync(join(work, "markers"))).toEqual([]);
  }, 300_000);

  it("refuses what the jobs cannot do, before any work", () => {
    const work = join(root, "refused");
    const refused: [string[], RegExp][] = [
      [["-o", "-"], /--output names a file or directory: - \(standard input\/output\) is not possible here/],
      [["-o", join(root, "x.vert"), "--update"], /--update appends to one index: give exactly one --against \(none given\)/],
      [["-o", join(root, "x.vert"), "--against", join(root, "none")], new RegExp(`${join(root, "none")}: no such index`)],
    ];
    for (const [args, message] of refused) {
      const r = vertdup(["slurm", "paragraphs", CORPUS, "-w", work, ...args, "--dry-run"]);
      expect(r.stderr).toMatch(message);
      expect(r.status).not.toBe(0);
      expect(existsSync(work)).toBe(false);
    }
    const stdin = vertdup(["slurm", "paragraphs", "-", "-w", work, "-o", join(root, "x.vert"), "--dry-run"]);
    expect(stdin.stderr).toContain("slurm paragraphs cannot read standard input: give the corpus as files on the shared filesystem");
    expect(existsSync(work)).toBe(false);
  });
});
