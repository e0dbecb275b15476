/** One job of a Slurm submission: a batch script, maybe an array, maybe after another job. */
export interface SlurmJob {
  /** Short name: the script's file name and the job's name (prefixed with `vertdup-`). */
  name: string;
  /** Number of array tasks; undefined for a single job. */
  arraySize?: number;
  /** The command each task runs; `$SLURM_ARRAY_TASK_ID` is set in array tasks. */
  command: string[];
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

/** Quotes a word for a POSIX shell unless it is plainly safe, keeping `$VAR` references. */
export function shellWord(word: string): string {
  if (/^[\w@%+=:,./$-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The text of a batch script: `#SBATCH` header, strict shell, then the command. */
export function renderBatchScript(job: SlurmJob, s: SlurmSettings): string {
  const header = [`--job-name=vertdup-${job.name}`, `--cpus-per-task=${s.cpusPerTask}`];
  if (job.arraySize !== undefined) {
    const limit = s.arrayParallelism !== undefined ? `%${s.arrayParallelism}` : "";
    header.push(`--array=0-${job.arraySize - 1}${limit}`);
    header.push(`--output=${s.logDir}/%x-%A_%a.log`);
  } else {
    header.push(`--output=${s.logDir}/%x-%j.log`);
  }
  if (s.partition !== undefined) header.push(`--partition=${s.partition}`);
  if (s.time !== undefined) header.push(`--time=${s.time}`);
  if (s.mem !== undefined) header.push(`--mem=${s.mem}`);
  header.push(...s.extra);
  return [
    "#!/usr/bin/env bash",
    ...header.map((h) => `#SBATCH ${h}`),
    "set -euo pipefail",
    `exec ${job.command.map(shellWord).join(" ")}`,
    "",
  ].join("\n");
}
