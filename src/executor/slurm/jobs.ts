import { isComplete, markerDone, runLocally, runStep, StepContext, type Pipeline, type Step, type StepProgress } from "../pipeline.js";
import { runTasks } from "../tasks.js";
import type { Slice } from "../../workdir/layout.js";

/**
 * The jobs Slurm runs for a pipeline, in order: each step but the local-only ones, an array
 * where the step has slices; or, for a pipeline that holds locks across its steps (`unit`),
 * one job that runs them all in one process, as one task whose marker keeps a finished run
 * from running again.
 */
export function pipelineJobs(pipeline: Pipeline): Step[] {
  const unit = pipeline.unit;
  if (unit === undefined) return pipeline.steps.map((step) => ({ ...step, run: (task) => runStep(pipeline, step, task) }));
  const names = pipeline.steps.map((s) => s.name);
  return [
    {
      name: unit.name,
      run: async ({ workers, quiet }) => {
        await runTasks(pipeline.workdir, [{ marker: unit.marker, start: async () => ({ result: runLocally(pipeline, workers, quiet) }), load: async () => undefined, stats: () => ({ steps: names }) }]);
      },
      progress: async () => markerDone(pipeline.workdir, unit.marker),
    },
  ];
}

/** Runs the slice `slice` of the job `name` (`vertdup task`); true when it is the pipeline's last job. */
export async function runJob(pipeline: Pipeline, name: string, slice: Slice, workers: number, quiet: boolean): Promise<boolean> {
  const jobs = pipelineJobs(pipeline);
  const job = jobs.find((j) => j.name === name);
  if (job === undefined) throw new JobNotFound(jobs.map((j) => j.name));
  // A job found complete (submitted again after it ran) does nothing, as a local --resume skips it.
  if (isComplete(await job.progress())) return job === jobs.at(-1);
  const context = new StepContext(workers);
  try {
    await job.run({ slice, workers, quiet, context });
  } finally {
    await context.close();
  }
  return job === jobs.at(-1);
}

/** `vertdup task` named no job of the submission. */
export class JobNotFound extends Error {
  constructor(readonly names: string[]) {
    super(`not a job of the submission (${names.join(", ")})`);
  }
}

/** Each job's progress, from the work directory's markers. */
export async function jobProgress(pipeline: Pipeline): Promise<({ phase: string } & StepProgress)[]> {
  const out = [];
  for (const job of pipelineJobs(pipeline)) out.push({ phase: job.name, ...(await job.progress()) });
  return out;
}
