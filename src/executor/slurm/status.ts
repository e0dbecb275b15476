import type { Pipeline } from "../pipeline.js";
import { jobProgress } from "./jobs.js";
import { activeJobs } from "./sbatch.js";
import { readSubmittedJobs } from "./settings.js";

/** Progress of a submitted pipeline, job by job from its markers, and which of its jobs Slurm still holds. */
export async function runStatus(pipeline: Pipeline): Promise<{ phases: Awaited<ReturnType<typeof jobProgress>>; active: string[] }> {
  const jobs = await readSubmittedJobs(pipeline.workdir);
  return { phases: await jobProgress(pipeline), active: await activeJobs(Object.values(jobs)) };
}
