import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { optionsJson, parseOptionsJson } from "../../workdir/run-config.js";
import { writeAtomic } from "../../util/atomic.js";
import type { ScriptWord } from "./batch-script.js";
import { VertdupError } from "../../core/errors.js";
import { packageRoot } from "../../util/package-info.js";

/**
 * What a submission stored in the work directory (slurm/run.json), so that every job, wherever
 * it runs, builds the same pipeline: which job it is (a method's run, or another command), the
 * token of the work directory's lock its tasks carry, and that job's own settings (the
 * registry of methods reads them).
 */
export interface SubmissionSettings {
  method?: string;
  command?: string;
  /** Token of the work directory's lock taken at submission: its tasks carry it to be admitted. */
  token: string;
  /** The output directory locked under the same token for the jobs, released by the last. */
  lockedOutdir?: string;
}

/** What a submission runs, for `slurm status` and messages: its method, or its command. */
export function submissionKind(settings: SubmissionSettings): { key: "method" | "command"; value: string } {
  return settings.command !== undefined ? { key: "command", value: settings.command } : { key: "method", value: String(settings.method) };
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
  if (!existsSync(path)) throw new VertdupError(`${workdir}: no slurm/${SETTINGS} (was this work directory submitted with vertdup slurm?)`);
  return parseOptionsJson(await readFile(path, "utf8")) as SubmissionSettings;
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
