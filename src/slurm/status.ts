import type { StepProgress } from "../executor/step.js";
import { slurmPhases } from "./phases.js";
import { activeJobs } from "./sbatch.js";
import { readSlurmSettings, readSubmittedJobs, submissionKind } from "./slurm-run.js";

/** Progress of a submitted run, phase by phase from its markers, and which of its jobs Slurm still holds. */
export async function runStatus(workdir: string): Promise<{ kind: ReturnType<typeof submissionKind>; phases: ({ phase: string } & StepProgress)[]; active: string[] }> {
  const settings = await readSlurmSettings(workdir);
  const phases = [];
  for (const phase of slurmPhases(workdir, settings)) phases.push({ phase: phase.name, ...(await phase.progress()) });
  const jobs = await readSubmittedJobs(workdir);
  return { kind: submissionKind(settings), phases, active: await activeJobs(Object.values(jobs)) };
}
