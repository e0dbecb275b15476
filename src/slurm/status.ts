import { existsSync } from "node:fs";
import { chunksFile, completedTasks, markerFile } from "../coordinator/workdir.js";
import { readChunkCounts } from "../coordinator/steps/require.js";
import { plebPlan } from "../coordinator/steps/pleb-step.js";
import { activeJobs } from "./sbatch.js";
import { readSlurmSettings, readSubmittedJobs } from "./slurm-run.js";

export interface PhaseProgress {
  phase: string;
  done: number;
  /** Tasks of the phase; undefined while unknown (the corpus not read through yet). */
  total?: number;
}

/** Progress of a submitted run, from its markers, and which of its jobs Slurm still holds. */
export async function runStatus(workdir: string): Promise<{ phases: PhaseProgress[]; active: string[]; outputs: boolean }> {
  const settings = await readSlurmSettings(workdir);
  const markers = await completedTasks(workdir);
  const count = (prefix: string) => markers.filter((m) => m.startsWith(prefix)).length;
  const shards = existsSync(chunksFile(workdir)) ? (await readChunkCounts(workdir)).shards : undefined;
  const plan = plebPlan(workdir, settings.pleb, settings.iterationsPerGroup);
  const phases: PhaseProgress[] = [
    { phase: "count", done: count("count-"), total: shards },
    { phase: "vocabulary", done: existsSync(markerFile(workdir, "vocabulary")) ? 1 : 0, total: 1 },
    { phase: "sign", done: count("sign-"), total: shards },
    { phase: "merge", done: existsSync(markerFile(workdir, "merge")) ? 1 : 0, total: 1 },
    { phase: "pleb", done: count(`pleb-${plan.fingerprint}-group-`), total: plan.groups },
  ];
  const jobs = await readSubmittedJobs(workdir);
  const outputs = existsSync(markerFile(workdir, `output-${plan.fingerprint}`));
  return { phases, active: await activeJobs(Object.values(jobs)), outputs };
}
