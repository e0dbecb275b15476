import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ARRAY_TASK_ID, type ScriptWord, type SlurmJob } from "./batch-script.js";
import { sbatch } from "./sbatch.js";
import { slurmDir, taskCommand, type SlurmRunSettings, type SubmittedJobs } from "./slurm-run.js";

/**
 * The jobs of a run on Slurm, in dependency order: the preparatory shards as one array, the
 * vocabulary after it, the signatures as an array, the merge, the PLEB iteration groups as an
 * array, and the outputs. Each waits for the previous one (afterok).
 */
export function runJobs(workdir: string, run: SlurmRunSettings, groups: number): SlurmJob[] {
  const slice = (count: number): ScriptWord[] => ["--index", ARRAY_TASK_ID, "--count", String(count), "--token", run.token];
  return [
    { name: "count", arraySize: run.tasks, command: taskCommand("count", workdir, slice(run.tasks)) },
    { name: "vocabulary", command: taskCommand("vocabulary", workdir, ["--token", run.token]) },
    { name: "sign", arraySize: run.tasks, command: taskCommand("sign", workdir, slice(run.tasks)) },
    { name: "merge", command: taskCommand("merge", workdir, ["--token", run.token]) },
    { name: "pleb", arraySize: groups, command: taskCommand("pleb", workdir, slice(groups)) },
    { name: "output", command: taskCommand("output", workdir, ["--token", run.token]) },
  ];
}

/** Writes the batch scripts (rendered, in job order) into `<workdir>/slurm/`; returns their paths. */
export async function writeBatchScripts(workdir: string, jobs: readonly SlurmJob[], texts: readonly string[]): Promise<string[]> {
  const paths: string[] = [];
  for (const [k, job] of jobs.entries()) {
    const path = join(slurmDir(workdir), `${k + 1}-${job.name}.sbatch`);
    await writeFile(path, texts[k], { mode: 0o755 });
    paths.push(path);
  }
  return paths;
}

/** Submits the scripts as a chain, each job after the previous one succeeded. */
export async function submitChain(jobs: readonly SlurmJob[], scripts: readonly string[]): Promise<SubmittedJobs> {
  const ids: SubmittedJobs = {};
  let previous: string[] = [];
  for (const [k, job] of jobs.entries()) {
    const id = await sbatch(scripts[k], previous);
    ids[job.name] = id;
    previous = [id];
  }
  return ids;
}
