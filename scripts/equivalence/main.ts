/**
 * Equivalence check: the current tree's outputs are byte for byte those of a baseline release
 * built from git, for every method and command (docs/EQUIVALENCE.md).
 *
 *   npm run equivalence -- [--base REV] [--quick] [--slurm]
 *
 *   --base REV  the baseline commit (default: 0.6.0, ef2020d), built once in
 *               $TMPDIR/vertdup-equivalence/base-<commit> and reused
 *   --quick     a 3,000-document web corpus instead of 20,000 (a few minutes)
 *   --slurm     also the main runs as `vertdup slurm run|paragraphs` on the test cluster
 *               (scripts/slurm/test-cluster.sh), compared with the baseline's local outputs
 *
 * Prints one line per case (identical / DIFFERENT (files) / FAILED (why)), then whether a
 * finished run given --resume rewrote any file of its work directory (current tree; reported,
 * not counted), and exits 1 when a case differs or fails. The log and every case's
 * directories are kept in the cache directory.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { SLURM_WORKDIR, caseTable, type Case, type Step } from "./cases.js";
import { differingFiles, snapshot, summarizeFiles, touchedFiles } from "./files.js";
import { baselineCli, makeCorpora, tail, type Log } from "./setup.js";
import { slurmUnavailable, unfinishedPhases, waitForRun } from "./slurm.js";

const DEFAULT_BASE = "ef2020d9199cf42cf568e7dbe0a02d8eb0d4d8aa"; // version 0.6.0
/** Fixes the dates an index records for its batches (2026-01-01), so that indices compare. */
const SOURCE_DATE_EPOCH = "1767225600";
const STEP_TIMEOUT_MS = 30 * 60_000;

const { values: args } = parseArgs({
  options: { base: { type: "string", default: DEFAULT_BASE }, quick: { type: "boolean", default: false }, slurm: { type: "boolean", default: false } },
});
const repo = resolve(import.meta.dirname, "..", "..", "..");
const cache = join(tmpdir(), "vertdup-equivalence");
const logFile = join(cache, "equivalence.log");
const log: Log = (text) => appendFileSync(logFile, text.endsWith("\n") ? text : `${text}\n`);

/** A build's CLI and the directory its cases run in. */
interface Build {
  label: string;
  cli: string;
  root: string;
}

/** Runs one step in `dir`; what failed (the build, command, exit code or signal, stderr's tail), or null. */
function runStep(build: Build, dir: string, step: Step): string | null {
  const started = Date.now();
  const r = spawnSync(process.execPath, [build.cli, ...step], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 1 << 30,
    timeout: STEP_TIMEOUT_MS,
    env: { ...process.env, SOURCE_DATE_EPOCH },
  });
  const exit = r.error?.message ?? r.signal ?? r.status;
  log(`[${build.label}] (cd ${dir} && vertdup ${step.join(" ")}) → ${exit} in ${((Date.now() - started) / 1000).toFixed(1)} s\n${r.stderr}`);
  return r.status === 0 ? null : `${build.label}: vertdup ${step[0]} exit ${exit}: ${tail(r.stderr, 3)}`;
}

/** The baseline's version (its package.json). */
const baseVersion = (JSON.parse(execFileSync("git", ["-C", repo, "show", `${args.base}:package.json`], { encoding: "utf8" })) as { version: string }).version;

/** Whether version `a` comes before `b` (x.y.z). */
const before = (a: string, b: string) => {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number));
  const k = x.findIndex((n, i) => n !== y[i]);
  return k >= 0 && x[k] < y[k];
};

/** The steps a build runs for a case: the current tree's renamed ones against a baseline from before the renaming. */
function stepsOf(build: Build, c: Case): Step[] {
  const renamed = c.currentSteps !== undefined && (c.renamedIn === undefined || before(baseVersion, c.renamedIn));
  return build.label === "current" && renamed ? (c.currentSteps ?? c.steps) : c.steps;
}

/** Runs a case's steps in `<build root>/<case>`; the first failure, or null. */
function runCase(build: Build, c: Case): string | null {
  const dir = caseDir(build, c);
  mkdirSync(dir, { recursive: true });
  for (const step of stepsOf(build, c)) {
    const failure = runStep(build, dir, step);
    if (failure !== null) return failure;
  }
  return null;
}

function caseDir(build: Build, c: Case): string {
  return join(build.root, c.name.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, ""));
}

function report(name: string, verdict: string): void {
  const line = `${name.padEnd(64)} ${verdict}`;
  console.log(line);
  log(line);
}

/** Reports a compared case: FAILED, DIFFERENT or identical (the whole list of files in the log); whether it was bad. */
function reportComparison(name: string, failure: string | null, differing: string[]): boolean {
  if (failure !== null) report(name, `FAILED (${failure})`);
  else report(name, differing.length === 0 ? "identical" : `DIFFERENT (${summarizeFiles(differing)})`);
  if (differing.length > 0) log(`  differing files:\n  ${differing.join("\n  ")}`);
  return failure !== null || differing.length > 0;
}

/** Runs every case with both builds and compares; the number of cases that differ or fail. */
function compareBuilds(cases: Case[], base: Build, current: Build): number {
  let bad = 0;
  for (const c of cases) {
    const failure = runCase(base, c) ?? runCase(current, c);
    const differing = failure === null ? differingFiles(caseDir(base, c), caseDir(current, c), c) : [];
    if (reportComparison(c.name, failure, differing)) bad++;
  }
  return bad;
}

/**
 * Current tree: each finished run with a resume check runs again with --resume; every file of
 * its work directory must keep its inode, modification time and content. Returns the failures
 * (a resume that did not succeed); rewritten files are reported only.
 */
function checkResumes(cases: Case[], current: Build): number {
  let failed = 0;
  for (const c of cases.filter((c) => c.resumeWorkdir !== undefined)) {
    const dir = caseDir(current, c);
    const workdir = join(dir, c.resumeWorkdir!);
    const name = `resume: ${c.name}`;
    if (!existsSync(join(workdir, "index.json"))) {
      report(name, "FAILED (the run did not finish)");
      failed++;
      continue;
    }
    const before = snapshot(workdir);
    const failure = runStep(current, dir, [...c.steps.at(-1)!, "--resume"]);
    const touched = touchedFiles(before, snapshot(workdir));
    if (failure !== null) {
      report(name, `FAILED (${failure})`);
      failed++;
    } else report(name, touched.length === 0 ? `untouched (${before.size} files)` : `REWROTE ${touched.length} of ${before.size} files: ${summarizeFiles(touched, 40)}`);
  }
  return failed;
}

/** With --slurm: each case's Slurm submission (current tree) against the baseline's local outputs. */
async function compareSlurm(cases: Case[], base: Build, current: Build, root: string): Promise<number> {
  const withSlurm = cases.filter((c) => c.slurm !== undefined);
  const unavailable = slurmUnavailable();
  if (unavailable !== null) {
    for (const c of withSlurm) report(`slurm: ${c.name}`, `SKIPPED (${unavailable})`);
    return 0;
  }
  const slurm: Build = { label: "slurm", cli: current.cli, root };
  // Submitted all at once: the cluster runs them as it has room.
  const submitted = withSlurm.map((c) => {
    mkdirSync(caseDir(slurm, c), { recursive: true });
    return { c, submitFailure: runStep(slurm, caseDir(slurm, c), c.slurm!) };
  });
  let bad = 0;
  for (const { c, submitFailure } of submitted) {
    const dir = caseDir(slurm, c);
    let failure = submitFailure;
    if (failure === null) {
      const status = await waitForRun(() => spawnSync(process.execPath, [slurm.cli, "slurm", "status", "-w", SLURM_WORKDIR], { cwd: dir, encoding: "utf8" }).stdout, 60);
      const unfinished = unfinishedPhases(status);
      if (unfinished.length > 0) failure = `not done: ${unfinished.join(", ")} (job logs in ${join(dir, SLURM_WORKDIR, "slurm", "logs")})`;
    }
    if (reportComparison(`slurm: ${c.name}`, failure, failure === null ? differingFiles(caseDir(base, c), dir, c, true) : [])) bad++;
  }
  return bad;
}

async function main(): Promise<number> {
  const started = Date.now();
  mkdirSync(cache, { recursive: true });
  writeFileSync(logFile, `vertdup equivalence ${process.argv.slice(2).join(" ")}, ${new Date().toISOString()}\n`);
  const currentCli = join(repo, "dist", "bundle", "cli.js");
  if (!existsSync(currentCli)) throw new Error(`${currentCli} is missing: npm run build`);
  const baseCli = baselineCli(log, repo, cache, args.base);
  const runs = join(cache, args.quick ? "runs-quick" : "runs");
  rmSync(runs, { recursive: true, force: true });
  mkdirSync(join(runs, "inputs"), { recursive: true });
  const docs = args.quick ? 3000 : 20_000;
  console.log(`baseline ${args.base} against the current tree ${repo}; web corpus of ${docs} documents; in ${runs}`);
  const cases = caseTable(makeCorpora(log, repo, join(runs, "inputs"), docs));
  const base: Build = { label: "baseline", cli: baseCli, root: join(runs, "base") };
  const current: Build = { label: "current", cli: currentCli, root: join(runs, "current") };

  let bad = compareBuilds(cases, base, current);
  const badResumes = checkResumes(cases, current);
  if (args.slurm) bad += await compareSlurm(cases, base, current, join(runs, "slurm"));
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const summary = `${bad === 0 ? "all identical" : `${bad} differ or failed`}; resume: ${badResumes} failed; ${minutes} min; log ${logFile}`;
  console.log(summary);
  log(summary);
  return bad + badResumes === 0 ? 0 : 1;
}

process.exitCode = await main();
