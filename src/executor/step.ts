import { existsSync } from "node:fs";
import { completedTasks, markerFile, type Slice } from "../workdir/layout.js";

/** What a step's run is given: its slice of the work (the whole locally; an array task's on Slurm) and its cores. */
export interface StepRun {
  /** The slice of the step's tasks ({0, 1}: all of them). */
  slice: Slice;
  /** Worker threads: the machine's, or the cores Slurm allocated to the array task. */
  workers: number;
  quiet: boolean;
}

/** Units of a step done (chunks, iteration groups, or 1 for a single task), of `total` (undefined while unknown). */
export interface StepProgress {
  done: number;
  total?: number;
}

/**
 * One step of a pipeline: what `slurm run` submits as one job (an array of `arraySize` slices,
 * or a single job), what `vertdup task <name>` runs in it, and what `slurm status` shows of it.
 * A pipeline's steps run in order, each after the previous one succeeded; a step reads the
 * files of the steps before it and leaves its own, with markers that make it resumable.
 */
export interface Step {
  /** The step's name: its job, the argument of `vertdup task`, its line in `slurm status`. */
  name: string;
  /** Slices its tasks may be cut into (a Slurm job array); undefined: one slice. */
  arraySize?: number;
  run(task: StepRun): Promise<void>;
  /** From the work directory's markers. */
  progress(): Promise<StepProgress>;
}

/** Markers whose name starts with `prefix`, of `total` tasks. */
export async function markersDone(workdir: string, prefix: string, total: number | undefined): Promise<StepProgress> {
  return { done: (await completedTasks(workdir)).filter((m) => m.startsWith(prefix)).length, total };
}

/** A single task: done once its marker is in place. */
export function markerDone(workdir: string, marker: string): StepProgress {
  return { done: existsSync(markerFile(workdir, marker)) ? 1 : 0, total: 1 };
}
