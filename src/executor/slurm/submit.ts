import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { lockOutdir, takeWorkdir } from "../../workdir/use.js";
import type { WorkdirLock } from "../../workdir/lock.js";
import type { Pipeline, Step } from "../pipeline.js";
import { ARRAY_TASK_ID, renderBatchScript, type ScriptWord, type SlurmJob, type SlurmSettings } from "./batch-script.js";
import { pipelineJobs } from "./jobs.js";
import { activeJobs, maxArraySize, sbatch } from "./sbatch.js";
import { readSlurmSettings, readSubmittedJobs, slurmDir, taskCommandLine, writeSlurmSettings, writeSubmittedJobs, type SubmissionSettings, type SubmittedJobs } from "./settings.js";

/**
 * The jobs of a run on Slurm, one per phase in order (each waits for the previous one,
 * afterok): an array's tasks run `vertdup task <phase> --index <array task id> --count <size>`.
 */
export function phaseJobs(workdir: string, phases: readonly Step[], token: string): SlurmJob[] {
  return phases.map(({ name, arraySize }) => {
    const slice: ScriptWord[] = arraySize === undefined ? [] : ["--index", ARRAY_TASK_ID, "--count", String(arraySize)];
    return { name, arraySize, command: taskCommandLine(name, workdir, [...slice, "--token", token]) };
  });
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

/**
 * The jobs as stages of arrays of at most `maxArraySize` tasks (the cluster's MaxArraySize,
 * which bounds the task ids too): a larger array becomes parts `<name>-1`, `<name>-2` … whose
 * tasks add the part's offset to their array task id, so that together they run every index.
 */
export function splitArrays(jobs: readonly SlurmJob[], maxArraySize: number): SlurmJob[][] {
  return jobs.map((job) => {
    if (job.arraySize === undefined || job.arraySize <= maxArraySize) return [job];
    const parts: SlurmJob[] = [];
    for (let from = 0; from < job.arraySize; from += maxArraySize) {
      const command = job.command.map((w) => (w === ARRAY_TASK_ID ? { ...ARRAY_TASK_ID, plus: from } : w));
      parts.push({ name: `${job.name}-${parts.length + 1}`, arraySize: Math.min(maxArraySize, job.arraySize - from), command });
    }
    return parts;
  });
}

/**
 * Submits the stages' scripts (in the order of `stages.flat()`) as a chain: every job of a
 * stage after every job of the previous stage succeeded.
 */
export async function submitChain(stages: readonly (readonly SlurmJob[])[], scripts: readonly string[]): Promise<SubmittedJobs> {
  const ids: SubmittedJobs = {};
  let previous: string[] = [];
  let k = 0;
  for (const stage of stages) {
    const current: string[] = [];
    for (const job of stage) {
      const id = await sbatch(scripts[k++], previous);
      ids[job.name] = id;
      current.push(id);
    }
    previous = current;
  }
  return ids;
}

/**
 * Submits `pipeline`'s jobs: the batch scripts rendered (once before any work, so that a value
 * no script can carry stops the submission before the work directory is made), the work
 * directory's lock taken for the jobs (and the output directory's, `outdir`, under the same
 * token: the last job releases both), `prepare` run under it (configuration, folders), the
 * settings (`settings(token)`) and scripts written and, unless `dryRun`, submitted as a chain.
 */
export async function submitPipeline(pipeline: Pipeline, settings: (token: string) => SubmissionSettings, scriptOptions: SlurmSettings, dryRun: boolean, prepare: () => Promise<void>, outdir?: string): Promise<void> {
  const { workdir } = pipeline;
  const maxArray = await maxArraySize();
  const render = (token: string) => {
    const stages = splitArrays(phaseJobs(workdir, pipelineJobs(pipeline), token), maxArray);
    const jobs = stages.flat();
    return { stages, jobs, texts: jobs.map((job) => renderBatchScript(job, scriptOptions)) };
  };
  render("0".repeat(16));
  // Kept after this process ends: the jobs carry its token. An earlier submission's lock is
  // taken over once none of its jobs is queued or running.
  const runOver = async () => (await activeJobs(Object.values(await readSubmittedJobs(workdir)))).length === 0;
  const lock = await takeWorkdir(workdir, { create: true, continueWith: "submit the same command again to continue", slurm: true, slurmRunOver: runOver });
  const { stages, jobs, texts } = render(lock.token);
  let scripts: string[];
  let outLock: WorkdirLock | null = null;
  try {
    // An -o held by this work directory's earlier submission is taken over with its work directory; another's is refused.
    const earlier = await readSlurmSettings(workdir).then((s) => s.token, () => undefined);
    if (outdir !== undefined) outLock = await lockOutdir(outdir, workdir, { slurm: true, token: lock.token, runWorkdir: workdir, slurmRunOver: async (holder) => holder.token === earlier && (await runOver()) });
    await prepare();
    await writeSlurmSettings(workdir, { ...settings(lock.token), ...(outLock === null ? {} : { lockedOutdir: outdir }) });
    scripts = await writeBatchScripts(workdir, jobs, texts);
  } catch (err) {
    // Nothing carries the lock's token yet: it must not outlive this process (a missing input).
    await outLock?.abandon();
    await lock.abandon();
    throw err;
  }
  if (dryRun) {
    process.stdout.write(`batch scripts written (not submitted):\n${scripts.join("\n")}\n`);
    return;
  }
  const ids = await submitChain(stages, scripts);
  await writeSubmittedJobs(workdir, ids);
  process.stdout.write(`submitted: ${jobs.map((j) => `${j.name} ${ids[j.name]}`).join(", ")}\nfollow with: vertdup slurm status -w ${workdir}\n`);
}
