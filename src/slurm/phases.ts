import type { Slice } from "../workdir/layout.js";
import { lshAgainstPhases } from "./lsh-against-phases.js";
import { lshCosinePhases } from "./lsh-cosine-phases.js";
import { setMethodPhases } from "./set-method-phases.js";
import { paragraphPhases } from "./paragraph-phases.js";
import type { SubmissionSettings } from "./slurm-run.js";

/** What a task of a phase is given when its batch script runs it (`vertdup task`). */
export interface PhaseTask {
  /** The array task's slice of the phase ({0, 1} for a single job). */
  slice: Slice;
  /** Worker threads: the cores Slurm allocated to the task. */
  workers: number;
  quiet: boolean;
}

/** Units of a phase done (chunks, iteration groups, or 1 for a single step), of `total` (undefined while unknown). */
export interface PhaseCompletion {
  done: number;
  total?: number;
}

/**
 * One job of a run on Slurm: what `slurm run` submits (an array of `arraySize` tasks, or a
 * single job), what `vertdup task <name>` runs in it, and what `slurm status` shows of it.
 * The jobs of a run are its phases in order, each after the previous one succeeded.
 */
export interface SlurmPhase {
  /** The job's name, the step `vertdup task` runs, its line in `slurm status`. */
  name: string;
  /** Tasks of its job array; undefined: a single job. */
  arraySize?: number;
  run(task: PhaseTask): Promise<void>;
  /** From the work directory's markers. */
  progress(): Promise<PhaseCompletion>;
}

/** The phases of the run (or paragraph job) submitted with `settings` into `workdir`. */
export function slurmPhases(workdir: string, settings: SubmissionSettings): SlurmPhase[] {
  if ("command" in settings) return paragraphPhases(workdir, settings);
  if ("supplement" in settings) return lshAgainstPhases(workdir, settings);
  return settings.method === "lsh-cosine" ? lshCosinePhases(workdir, settings) : setMethodPhases(workdir, settings);
}
