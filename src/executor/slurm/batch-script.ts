import { VertdupError } from "../../core/errors.js";

/** A word of a task's command: a literal, or the value of an environment variable (an integer one plus `plus`). */
export type ScriptWord = string | { env: string; plus?: number };

/** The array task's index, read from Slurm's environment when the task starts. */
export const ARRAY_TASK_ID: { env: string } = { env: "SLURM_ARRAY_TASK_ID" };

/** One job of a Slurm submission: a batch script, maybe an array, maybe after another job. */
export interface SlurmJob {
  /** Short name: the script's file name and the job's name (prefixed with `vertdup-`). */
  name: string;
  /** Number of array tasks; undefined for a single job. */
  arraySize?: number;
  /** The command each task runs, word by word. */
  command: ScriptWord[];
}

export interface SlurmSettings {
  partition?: string;
  /** At most this many array tasks at once (`%K` of `--array`). */
  arrayParallelism?: number;
  time?: string;
  mem?: string;
  cpusPerTask: number;
  /** Extra `#SBATCH` arguments, verbatim. */
  extra: string[];
  /** Where job logs go (`%x` name, `%A` array job, `%a` task, `%j` job). */
  logDir: string;
}

/**
 * Refuses what no line of a batch script can carry: a control character (a newline would end
 * the line and start a shell command; NUL ends the text sbatch reads).
 */
function checkScriptValue(what: string, value: string): void {
  const at = value.search(/[\x00-\x1f\x7f]/);
  if (at !== -1) {
    const code = value.charCodeAt(at).toString(16).padStart(2, "0");
    throw new VertdupError(`${what}: control character \\x${code} cannot go into a Slurm batch script: ${JSON.stringify(value)}`);
  }
}

/** A literal word for a POSIX shell: single-quoted, a quote as `'\''`; nothing inside expands. */
export function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function renderWord(word: ScriptWord): string {
  if (typeof word !== "string") return word.plus === undefined ? `"$${word.env}"` : `"$((${word.env} + ${word.plus}))"`;
  checkScriptValue("batch script command", word);
  return shellWord(word);
}

/**
 * One argument of an `#SBATCH` line as sbatch reads it: no shell is involved, white space
 * separates arguments, `"…"` or `'…'` group, a backslash escapes the next character and an
 * unquoted `#` starts a comment. A line that contains `packjob` or `hetjob` anywhere starts a
 * component of a heterogeneous job, so such a value cannot be written at all.
 */
export function sbatchWord(what: string, arg: string): string {
  checkScriptValue(what, arg);
  if (arg === "") throw new VertdupError(`${what}: an empty argument cannot go on an #SBATCH line`);
  if (/packjob|hetjob/i.test(arg)) throw new VertdupError(`${what}: sbatch reads "packjob" or "hetjob" on an #SBATCH line as a job separator: ${JSON.stringify(arg)}`);
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  return `"${arg.replace(/["\\]/g, "\\$&")}"`;
}

/**
 * A directory in an sbatch filename pattern: `%` is written `%%`; a backslash would switch
 * off the pattern's `%x`, `%A` … and is refused.
 */
function patternDir(dir: string): string {
  if (dir.includes("\\")) throw new VertdupError(`-w/--workdir: sbatch --output cannot name a path with a backslash: ${JSON.stringify(dir)}`);
  return dir.replace(/%/g, "%%");
}

/**
 * The words of an `--sbatch-arg`: `--qos normal` (an option, white space, its value) is two,
 * as sbatch takes it on the command line; `--qos=normal` or `--comment=a b` is one.
 */
export function sbatchArgWords(arg: string): string[] {
  const split = /^(-{1,2}[A-Za-z][\w-]*)\s+(\S[\s\S]*)$/.exec(arg);
  return split === null ? [arg] : [split[1], split[2]];
}

/** The text of a batch script: `#SBATCH` header, strict shell, then the command. */
export function renderBatchScript(job: SlurmJob, s: SlurmSettings): string {
  const header: [string, ...string[]][] = [
    ["job name", `--job-name=vertdup-${job.name}`],
    ["--cpus-per-task", `--cpus-per-task=${s.cpusPerTask}`],
  ];
  if (job.arraySize !== undefined) {
    const limit = s.arrayParallelism !== undefined ? `%${s.arrayParallelism}` : "";
    header.push(["--array", `--array=0-${job.arraySize - 1}${limit}`]);
    header.push(["-w/--workdir", `--output=${patternDir(s.logDir)}/%x-%A_%a.log`]);
  } else {
    header.push(["-w/--workdir", `--output=${patternDir(s.logDir)}/%x-%j.log`]);
  }
  if (s.partition !== undefined) header.push(["--partition", `--partition=${s.partition}`]);
  if (s.time !== undefined) header.push(["--time", `--time=${s.time}`]);
  if (s.mem !== undefined) header.push(["--mem", `--mem=${s.mem}`]);
  for (const arg of s.extra) header.push(["--sbatch-arg", ...sbatchArgWords(arg)]);
  return [
    "#!/usr/bin/env bash",
    ...header.map(([what, ...args]) => `#SBATCH ${args.map((arg) => sbatchWord(what, arg)).join(" ")}`),
    "set -euo pipefail",
    `exec ${job.command.map(renderWord).join(" ")}`,
    "",
  ].join("\n");
}
