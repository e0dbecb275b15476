import { existsSync } from "node:fs";
import { completedTasks, markerFile, WHOLE, type Slice } from "../workdir/layout.js";
import { killPoint } from "../util/kill-point.js";
import { WorkerPool } from "./pool.js";
import { InProcessPool, type TaskPool } from "./in-process-pool.js";
import { timed } from "./timing.js";
import type { WorkerEntry } from "./worker-entry.js";

/** What a step's run is given: its slice of the work (the whole locally; an array task's on Slurm) and its cores. */
export interface StepRun {
  /** The slice of the step's tasks ({0, 1}: all of them). */
  slice: Slice;
  /** Worker threads: the machine's, or the cores Slurm allocated to the array task. */
  workers: number;
  quiet: boolean;
  /** What the steps run in this process share: pools, and resources loaded once. */
  context: StepContext;
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
 * files of the steps before it and leaves its own, with markers that make it resumable: a
 * step whose progress is complete is not run again.
 */
export interface Step {
  /** The step's name: its job, the argument of `vertdup task`, its line in `slurm status`. */
  name: string;
  /** Slices its tasks may be cut into (a Slurm job array); undefined: one slice. */
  arraySize?: number;
  /**
   * Only where the next steps run as slices in other processes (the chunk plan, which lets
   * each array task read its own byte ranges): a local run streams the corpus instead.
   */
  forSlices?: true;
  /** The worker pools it takes from the context (their entries): closed after the last step that names them. */
  pools?: readonly WorkerEntry<unknown>[];
  /** The phase its time is recorded under (manifest.json `phases`); undefined: not timed by the executor. */
  timing?: string;
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

/** Whether a step's progress says it is complete. */
export function isComplete(p: StepProgress): boolean {
  return p.total !== undefined && p.done >= p.total;
}

/**
 * What the steps run in one process share: worker pools, started at a step's first call and
 * kept for the steps after it that name them, and resources loaded once (the signature store,
 * a verifier, opened indices). A step never depends on another's memory: on Slurm each step
 * runs in its own process and loads what it needs from the work directory.
 */
export class StepContext {
  /** Worker pools by entry name; in this thread, by entry (each loads its own part of a table). */
  private readonly pools = new Map<string | WorkerEntry<unknown>, { name: string; pool: TaskPool<unknown> }>();
  private readonly loaded = new Map<string, Promise<unknown>>();
  /** How to let go of the loaded resources that hold something (a lock, open files), latest first. */
  private readonly closers: (() => Promise<void>)[] = [];

  /** `inProcess`: every task runs in this thread (small inputs), and no pool starts a thread. */
  constructor(
    readonly workers: number,
    readonly inProcess = false,
  ) {}

  /** The pool of the worker entry `entry`, started at first use. */
  pool<T>(entry: WorkerEntry<T>): TaskPool<T> {
    // By name between threads: a handle typed by part of an entry's table (features/count-entry.ts) gets the entry's threads.
    const key = this.inProcess ? entry : entry.name;
    const found = this.pools.get(key);
    if (found !== undefined) return found.pool as TaskPool<T>;
    const pool: TaskPool<T> = this.inProcess ? new InProcessPool(entry.tasks) : new WorkerPool(entry, this.workers);
    this.pools.set(key, { name: entry.name, pool: pool as TaskPool<unknown> });
    return pool;
  }

  /**
   * The resource `key`, loaded by `load` at its first request in this process; `close` lets
   * go of it (a lock, a scratch folder) when the context closes.
   */
  shared<T>(key: string, load: () => Promise<T>, close?: (value: T) => Promise<void> | void): Promise<T> {
    const found = this.loaded.get(key);
    if (found !== undefined) return found as Promise<T>;
    const loading = load();
    this.loaded.set(key, loading);
    // A resource that failed to load holds nothing.
    if (close !== undefined) this.closers.unshift(() => loading.then(close, () => undefined));
    return loading;
  }

  /** Closes the pools of entries `needed` does not name (no later step uses them). */
  async closePools(needed: readonly WorkerEntry<unknown>[] = []): Promise<void> {
    for (const [key, { name, pool }] of this.pools) {
      if (needed.some((e) => e.name === name)) continue;
      this.pools.delete(key);
      await pool.close();
    }
  }

  /** Closes every pool and lets go of the resources loaded with a `close`, the latest first. */
  async close(): Promise<void> {
    await this.closePools();
    for (const close of this.closers.splice(0)) await close();
  }
}

/**
 * A pipeline: the ordered steps of a method's run, declared once, that `runLocally` runs in
 * this process and the Slurm executor submits as job arrays (executor/slurm/).
 */
export interface Pipeline {
  workdir: string;
  steps: readonly Step[];
  /**
   * Records the run's configuration before any step (config.json; the work directory is
   * cleared unless it may be resumed): by a local run, and by a Slurm submission.
   */
  start(context: StepContext): Promise<void>;
  /**
   * A pipeline that holds locks across all its steps (the indices of `--against`): Slurm runs
   * its steps in one job `name`, inside `hold`, as one task with this marker.
   */
  unit?: { name: string; marker: string; hold<T>(body: () => Promise<T>): Promise<T> };
}

/** Runs one step's slice: timed into its phase's marker when the step names a phase. */
export async function runStep(pipeline: Pipeline, step: Step, run: StepRun): Promise<void> {
  if (step.timing === undefined) await step.run(run);
  else await timed(pipeline.workdir, step.timing, run.slice, () => step.run(run));
}

/**
 * The local executor: every step in order, each over all its slices in this process on the
 * context's pools; a step whose markers say it is complete is skipped (`--resume`).
 */
export async function runSteps(pipeline: Pipeline, context: StepContext, quiet: boolean): Promise<void> {
  const steps = pipeline.steps.filter((s) => s.forSlices === undefined);
  try {
    for (const [k, step] of steps.entries()) {
      await context.closePools(steps.slice(k).flatMap((s) => s.pools ?? []));
      if (isComplete(await step.progress())) continue;
      await runStep(pipeline, step, { slice: WHOLE, workers: context.workers, quiet, context });
      killPoint(`step:${step.name}`);
    }
  } finally {
    await context.close();
  }
}

/** Starts the pipeline and runs its steps (within its locks, if it holds any). */
export async function runLocally(pipeline: Pipeline, workers: number, quiet: boolean, inProcess = false): Promise<void> {
  const hold = pipeline.unit?.hold ?? (<T>(body: () => Promise<T>) => body());
  await hold(async () => {
    const context = new StepContext(workers, inProcess);
    try {
      await pipeline.start(context);
    } catch (err) {
      await context.close();
      throw err;
    }
    await runSteps(pipeline, context, quiet);
  });
}
