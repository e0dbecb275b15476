import type { Step } from "../executor/step.js";
import { lshAgainstPhases } from "./lsh-against-phases.js";
import { lshCosinePhases } from "./lsh-cosine-phases.js";
import { setMethodPhases } from "./set-method-phases.js";
import { paragraphPhases } from "./paragraph-phases.js";
import type { SubmissionSettings } from "./slurm-run.js";

/** The phases of the run (or paragraph job) submitted with `settings` into `workdir`. */
export function slurmPhases(workdir: string, settings: SubmissionSettings): Step[] {
  if ("command" in settings) return paragraphPhases(workdir, settings);
  if ("supplement" in settings) return lshAgainstPhases(workdir, settings);
  return settings.method === "lsh-cosine" ? lshCosinePhases(workdir, settings) : setMethodPhases(workdir, settings);
}
