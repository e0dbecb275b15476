import { slurmPhases, type PhaseCompletion } from "./phases.js";
import { activeJobs } from "./sbatch.js";
import { readSlurmSettings, readSubmittedJobs } from "./slurm-run.js";

/** Progress of a submitted run, phase by phase from its markers, and which of its jobs Slurm still holds. */
export async function runStatus(workdir: string): Promise<{ method: string; phases: ({ phase: string } & PhaseCompletion)[]; active: string[] }> {
  const settings = await readSlurmSettings(workdir);
  const phases = [];
  for (const phase of slurmPhases(workdir, settings)) phases.push({ phase: phase.name, ...(await phase.progress()) });
  const jobs = await readSubmittedJobs(workdir);
  return { method: settings.method, phases, active: await activeJobs(Object.values(jobs)) };
}
