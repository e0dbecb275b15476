import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, removeTempDirs, tempDir, vertdup } from "../helpers/cli.js";

afterAll(removeTempDirs);

const CORPUS = "data-samples/kjv-3000.vert.gz";
// Several chunks, so that a kill after a chunk's marker lands in the middle of the scan.
const ARGS = ["--chunk-size", "300000", "--quiet"];
// Three copies: more than the in-process limit (the worker pool runs) and, with --memory 16M, external mode.
const POOL_EXTERNAL = { inputs: [CORPUS, CORPUS, CORPUS], args: ["--chunk-size", "2000000", "--memory", "16M", "--workers", "2", "--quiet"] };

const markers = (work: string, prefix: string) => (existsSync(join(work, "markers")) ? readdirSync(join(work, "markers")).filter((n) => n.startsWith(prefix) && n.endsWith(".done")).sort() : []);
const saved = (work: string) => readdirSync(join(work, "paragraph-steps")).filter((n) => !n.includes(".tmp-"));
const mtimes = (work: string, names: readonly string[]) => names.map((n) => statSync(join(work, "paragraph-steps", n)).mtimeMs);
/** The report without its timings and paths. */
const reportOf = (output: string) => {
  const { phases: _, output: __, ...rest } = JSON.parse(readFileSync(`${output}.report.json`, "utf8")) as Record<string, unknown>;
  return rest;
};

function killedAt(point: string, inputs: readonly string[], output: string, work: string, args: readonly string[]): void {
  const killed = spawnSync(process.execPath, [CLI, "paragraphs", ...inputs, "-o", output, "-w", work, ...args], { env: { ...process.env, VERTDUP_FAULT: `kill:${point}` } });
  expect(killed.signal, killed.stderr.toString()).toBe("SIGKILL");
}

describe("paragraphs -w --resume after a SIGKILL", () => {
  const root = tempDir();
  const whole = join(root, "whole.vert");
  expect(vertdup(["paragraphs", CORPUS, "-o", whole, ...ARGS]).status).toBe(0);

  it.each([
    ["in the scan (a chunk's marker)", "marker:paragraphs-ngrams-000003", "paragraphs-ngrams-"],
    ["in the repeats step (a group of bucket tables)", "marker:paragraphs-repeats-8-48-x16", "paragraphs-repeats-"],
  ])("%s: finished tasks are read back, the output is byte-identical", (_, point, prefix) => {
    const dir = tempDir();
    const work = join(dir, "w");
    const output = join(dir, "out.vert");
    killedAt(point, [CORPUS], output, work, ARGS);
    expect(existsSync(output)).toBe(false);
    const done = markers(work, prefix);
    expect(done).toContain(`${point.slice("marker:".length)}.done`);
    expect(saved(work).length).toBeGreaterThan(0);
    const resumed = vertdup(["paragraphs", CORPUS, "-o", output, "-w", work, "--resume", ...ARGS]);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(readFileSync(output)).toEqual(readFileSync(whole));
    expect(reportOf(output)).toEqual(reportOf(whole));
    // The steps' files are gone after the success; the work directory is an index again.
    expect(existsSync(join(work, "paragraph-steps"))).toBe(false);
    expect(existsSync(join(work, "index.json"))).toBe(true);
  }, 300_000);

  it("finished chunks are not scanned again: their saved files keep their time", () => {
    const dir = tempDir();
    const work = join(dir, "w");
    const output = join(dir, "out.vert");
    killedAt("marker:paragraphs-ngrams-000002", [CORPUS], output, work, ARGS);
    // A task in flight may have saved its file too (without a marker, it is redone).
    const files = ["000000.ngrams", "000001.ngrams", "000002.ngrams"];
    expect(saved(work)).toEqual(expect.arrayContaining(files));
    const before = mtimes(work, files);
    // Killed again later: the first chunks' files are those of the first run.
    killedAt("marker:paragraphs-repeats-8-0-x16", [CORPUS], output, work, [...ARGS, "--resume"]);
    expect(mtimes(work, files)).toEqual(before);
    expect(saved(work).filter((n) => n.endsWith(".ngrams")).length).toBeGreaterThan(3);
    expect(vertdup(["paragraphs", CORPUS, "-o", output, "-w", work, "--resume", ...ARGS]).status).toBe(0);
    expect(readFileSync(output)).toEqual(readFileSync(whole));
  }, 300_000);

  it("after the output's marker, the resumed run leaves the output alone and commits the index", () => {
    const dir = tempDir();
    const work = join(dir, "w");
    const output = join(dir, "out.vert");
    killedAt("marker:paragraphs-render", [CORPUS], output, work, ARGS);
    expect(existsSync(join(work, "index.json"))).toBe(false);
    const written = statSync(output).mtimeMs;
    expect(vertdup(["paragraphs", CORPUS, "-o", output, "-w", work, "--resume", ...ARGS]).status).toBe(0);
    expect(statSync(output).mtimeMs).toBe(written);
    expect(readFileSync(output)).toEqual(readFileSync(whole));
    expect(existsSync(join(work, "index.json"))).toBe(true);
    // The index is the one an uninterrupted run leaves: a batch against either writes the same.
    const fresh = join(dir, "fresh-w");
    expect(vertdup(["paragraphs", CORPUS, "-o", join(dir, "fresh.vert"), "-w", fresh, ...ARGS]).status).toBe(0);
    const batch = "data-samples/sample.vert.gz";
    const [a, b] = [work, fresh].map((index, k) => {
      const path = join(dir, `against-${k}.vert`);
      expect(vertdup(["paragraphs", batch, "-o", path, "--against", index, ...ARGS]).status).toBe(0);
      return readFileSync(path);
    });
    expect(a).toEqual(b);
  }, 300_000);

  it("on the worker pool in external mode: killed in the scan and among the bucket tables, byte-identical", () => {
    const dir = tempDir();
    const reference = join(dir, "whole.vert");
    expect(vertdup(["paragraphs", ...POOL_EXTERNAL.inputs, "-o", reference, ...POOL_EXTERNAL.args]).status).toBe(0);
    expect(reportOf(reference)).toMatchObject({ mode: "external", inProcess: false });
    const work = join(dir, "w");
    const output = join(dir, "out.vert");
    killedAt("marker:paragraphs-ngrams-000004", POOL_EXTERNAL.inputs, output, work, POOL_EXTERNAL.args);
    killedAt("marker:paragraphs-repeats-8-100-x1", POOL_EXTERNAL.inputs, output, work, [...POOL_EXTERNAL.args, "--resume"]);
    expect(markers(work, "paragraphs-repeats-").length).toBeGreaterThan(1);
    const resumed = vertdup(["paragraphs", ...POOL_EXTERNAL.inputs, "-o", output, "-w", work, "--resume", ...POOL_EXTERNAL.args]);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(readFileSync(output)).toEqual(readFileSync(reference));
    expect(reportOf(output)).toEqual(reportOf(reference));
  }, 400_000);
});

/** Every file under `dir` with its inode and modification time: a rewrite changes one or the other. */
const snapshot = (dir: string): string[] =>
  (readdirSync(dir, { recursive: true, withFileTypes: true }) as Dirent[])
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      const s = statSync(path);
      return `${path} ${s.ino} ${s.mtimeMs}`;
    })
    .sort();

describe("paragraphs -w --resume of a finished run", () => {
  it.each([
    ["in process", [CORPUS], ARGS, false],
    ["on the worker pool in external mode, against an index", POOL_EXTERNAL.inputs, POOL_EXTERNAL.args, true],
  ] as const)("%s: rewrites no file of the work directory (or of the index), leaves the output alone, and says what the run did", (_, inputs, args, against) => {
    const dir = tempDir();
    const work = join(dir, "w");
    const output = join(dir, "out.vert");
    const index = join(dir, "index");
    if (against) expect(vertdup(["paragraphs", "data-samples/sample.vert.gz", "-o", join(dir, "base.vert"), "-w", index, "--quiet"]).status).toBe(0);
    const run = ["paragraphs", ...inputs, "-o", output, "-w", work, ...(against ? ["--against", index] : []), ...args];
    const finished = vertdup(run);
    expect(finished.status, finished.stderr).toBe(0);
    const before = [...snapshot(work), ...(against ? snapshot(index) : []), ...snapshot(dir).filter((f) => f.startsWith(output))];
    const resumed = vertdup([...run, "--resume"]);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect([...snapshot(work), ...(against ? snapshot(index) : []), ...snapshot(dir).filter((f) => f.startsWith(output))]).toEqual(before);
    // The finished run's summary, seconds and all: nothing ran again.
    const summary = (stderr: string) => stderr.slice(stderr.indexOf("vertdup paragraphs: "));
    expect(summary(resumed.stderr)).toBe(summary(finished.stderr));
    expect(resumed.stderr).not.toMatch(/n-grams:/);
    // Its output gone, the finished run has nothing left to write it from: it starts over.
    const written = readFileSync(output);
    rmSync(output);
    expect(vertdup([...run, "--resume"]).status).toBe(0);
    expect(readFileSync(output)).toEqual(written);
  }, 300_000);
});

describe("paragraphs --resume refusals", () => {
  it("refuses --resume without -w, to standard output, with --update, with other options, and in another command's work directory", () => {
    const dir = tempDir();
    const work = join(dir, "w");
    const output = join(dir, "out.vert");
    const noWork = vertdup(["paragraphs", CORPUS, "-o", output, "--resume", ...ARGS]);
    expect(noWork.status).toBe(1);
    expect(noWork.stderr).toMatch(/--resume needs the work directory of the interrupted run \(-w\)/);
    killedAt("marker:paragraphs-ngrams-000001", [CORPUS], output, work, ARGS);
    const other = vertdup(["paragraphs", CORPUS, "-o", output, "-w", work, "--resume", "--threshold", "0.7", ...ARGS]);
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(/refusing to resume: the work directory was made with other --threshold \(0.5 there, 0.7 now\)/);
    const chunks = vertdup(["paragraphs", CORPUS, "-o", output, "-w", work, "--resume", "--chunk-size", "400000", "--quiet"]);
    expect(chunks.stderr).toMatch(/refusing to resume: .*--chunk-size \(300000 there, 400000 now\)/);
    const elsewhere = vertdup(["paragraphs", CORPUS, "-o", join(dir, "elsewhere.vert"), "-w", work, "--resume", ...ARGS]);
    expect(elsewhere.stderr).toMatch(/refusing to resume: .*--output/);
    // A finished output step would be skipped, and standard output cannot be continued.
    const stdout = vertdup(["paragraphs", CORPUS, "-o", "-", "-w", work, "--resume", ...ARGS]);
    expect(stdout.status).toBe(1);
    expect(stdout.stdout).toBe("");
    expect(stdout.stderr).toMatch(/--resume cannot be combined with -o - \(standard output cannot be continued where an interrupted run stopped\): write the output to a file/);
    const update = vertdup(["paragraphs", CORPUS, "-o", output, "-w", work, "--resume", "--against", work, "--update", ...ARGS]);
    expect(update.status).toBe(1);
    expect(update.stderr).toMatch(/--resume cannot be combined with --update/);
    // Nothing was touched by the refusals: the resume still finishes.
    expect(vertdup(["paragraphs", CORPUS, "-o", output, "-w", work, "--resume", ...ARGS]).status).toBe(0);

    const runWork = join(dir, "run-w");
    expect(vertdup(["run", "data-samples/sample.vert.gz", "-o", join(dir, "run-out"), "-w", runWork, "--method", "exact", "--no-report", "--quiet"]).status).toBe(0);
    const foreign = vertdup(["paragraphs", CORPUS, "-o", output, "-w", runWork, "--resume", ...ARGS]);
    expect(foreign.status).toBe(1);
    expect(foreign.stderr).toMatch(/refusing to resume: the work directory was made by another command than vertdup paragraphs/);
  }, 400_000);

  it("a run without --resume starts over in the same work directory", () => {
    const dir = tempDir();
    const work = join(dir, "w");
    const output = join(dir, "out.vert");
    killedAt("marker:paragraphs-ngrams-000002", [CORPUS], output, work, ARGS);
    const before = mtimes(work, ["000000.ngrams"]);
    killedAt("marker:paragraphs-ngrams-000000", [CORPUS], output, work, ARGS);
    // The first run's markers are gone (the task in flight beside chunk 0 may have left its own).
    expect(markers(work, "paragraphs-ngrams-")).toContain("paragraphs-ngrams-000000.done");
    expect(markers(work, "paragraphs-ngrams-")).not.toContain("paragraphs-ngrams-000002.done");
    expect(mtimes(work, ["000000.ngrams"])).not.toEqual(before);
  }, 300_000);
});
