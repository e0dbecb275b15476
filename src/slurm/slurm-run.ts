import type { MethodRun, SetMethod } from "../methods/sets/set-method.js";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { CalibrationRequest } from "../methods/lsh-cosine/calibrate-step.js";
import type { LshCosineRun } from "../methods/lsh-cosine/run.js";
import { optionsJson, parseOptionsJson } from "../workdir/run-config.js";
import type { KeepPolicy } from "../core/method-options.js";
import type { ExecutionOptions, PlebOptions } from "../core/options.js";

import { writeAtomic } from "../util/atomic.js";
import type { ScriptWord } from "./batch-script.js";
import { VertdupError } from "../core/errors.js";
import { packageRoot } from "../util/package-info.js";

/**
 * What the tasks of a Slurm run need besides config.json: stored in the work directory at
 * submission, so that every task, wherever it runs, uses the same settings.
 */
export type SlurmRunSettings = SlurmRunCommon & (LshCosineSettings | LshAgainstSettings | SetMethodSettings);

/**
 * What the jobs of `slurm paragraphs` need besides config.json (which holds the inputs, the
 * paragraph options and the chunking): where the output and report go, and the later passes' settings.
 */
export interface SlurmParagraphSettings {
  command: "paragraphs";
  /** Output corpus file (absolute). */
  output: string;
  reportPath?: string;
  /** `--memory` of the later passes. */
  memory: number;
  /** Saved indices (`--against`, absolute). */
  against: string[];
  /** `--update`: the output job appends the inputs' n-grams to the one `against` index (absent in older submissions). */
  update?: boolean;
  /** Array size of the n-gram phase. */
  tasks: number;
  token: string;
}

/** What a submission into a work directory stored: a run (`slurm run`) or the paragraph job (`slurm paragraphs`). */
export type SubmissionSettings = SlurmRunSettings | SlurmParagraphSettings;

/** What a submission runs, for `slurm status` and messages: its method, or the paragraph command. */
export function submissionKind(settings: SubmissionSettings): { key: "method" | "command"; value: string } {
  return "command" in settings ? { key: "command", value: settings.command } : { key: "method", value: settings.method };
}

export interface SlurmRunCommon {
  outdir: string;
  /** Array size of the reading phases (count and sign; features). */
  tasks: number;
  /** Token of the work directory's lock taken at submission: its tasks carry it to be admitted. */
  token: string;
}

/** lsh-cosine: the PLEB and output tasks' options. */
export interface LshCosineSettings {
  method: "lsh-cosine";
  pleb: PlebOptions;
  iterationsPerGroup: number;
  keep: KeepPolicy;
  /** `--pairs-limit` of the output task (the mode is part of `pleb`). */
  pairsLimit: number;
  /** `--estimate-recall`: a calibrate job after the outputs, as `run --estimate-recall` calibrates. */
  calibrate?: Omit<CalibrationRequest, "sample">;
}

/**
 * lsh-cosine against saved indices (`--against`, `--update`): what its one job runs as
 * `vertdup run` does (methods/lsh-cosine/run.ts), in the work directory, into the outdir.
 */
export interface LshAgainstSettings {
  method: "lsh-cosine";
  supplement: Omit<LshCosineRun, "workdir" | "outdir" | "resume" | "saveIndex" | "calibrate">;
  exec: ExecutionOptions;
}

/** Another method: what its search task runs (run-method.ts) over the features the array made. */
export interface SetMethodSettings {
  method: SetMethod;
  run: MethodRun;
  /** Reading options of the features step (config.json holds what decides its files). */
  exec: ExecutionOptions;
}

export function slurmDir(workdir: string): string {
  return join(workdir, "slurm");
}

const SETTINGS = "run.json";
const JOBS = "jobs.json";

export async function writeSlurmSettings(workdir: string, settings: SubmissionSettings): Promise<void> {
  await mkdir(join(slurmDir(workdir), "logs"), { recursive: true });
  // Options may be infinite (--max-df none): written as config.json writes them.
  await writeAtomic(join(slurmDir(workdir), SETTINGS), optionsJson(settings));
}

export async function readSlurmSettings(workdir: string): Promise<SubmissionSettings> {
  const path = join(slurmDir(workdir), SETTINGS);
  if (!existsSync(path)) throw new VertdupError(`${workdir}: no slurm/${SETTINGS} (was this work directory submitted with vertdup slurm run or slurm paragraphs?)`);
  const settings = parseOptionsJson(await readFile(path, "utf8")) as SubmissionSettings;
  // Submitted before slurm run had --method.
  if (!("command" in settings)) settings.method ??= "lsh-cosine";
  return settings;
}

/** Job ids of the last submission, by phase. */
export type SubmittedJobs = Record<string, string>;

export async function writeSubmittedJobs(workdir: string, jobs: SubmittedJobs): Promise<void> {
  await writeAtomic(join(slurmDir(workdir), JOBS), JSON.stringify(jobs, null, 2) + "\n");
}

export async function readSubmittedJobs(workdir: string): Promise<SubmittedJobs> {
  const path = join(slurmDir(workdir), JOBS);
  return existsSync(path) ? (JSON.parse(await readFile(path, "utf8")) as SubmittedJobs) : {};
}

/**
 * The command line of a task: this Node.js and this vertdup's bundled CLI, by absolute paths
 * (found from the package root: inside the bundle, import.meta.url names a chunk).
 */
export function taskCommandLine(step: string, workdir: string, extra: ScriptWord[] = []): ScriptWord[] {
  const cli = join(packageRoot(), "dist", "bundle", "cli.js");
  return [process.execPath, cli, "task", step, "-w", resolve(workdir), ...extra];
}
