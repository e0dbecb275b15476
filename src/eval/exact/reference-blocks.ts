import { createHash } from "node:crypto";
import { join } from "node:path";
import type { TaskPool } from "../../executor/in-process-pool.js";
import type { ReferenceTasks } from "./reference-entry.js";
import type { TaskArg, TaskValue } from "../../executor/worker-entry.js";
import type { Reporter } from "../../executor/progress.js";
import { shardName } from "../../workdir/layout.js";
import { runTasks, type StepTask } from "../../executor/tasks.js";
import { startStep, stepFolder, stepMarker, type StepDir } from "../../workdir/step-dir.js";
import { readRunFileSync, writeRunFile } from "../../util/run-file.js";

/** A reference computation run in a work directory (`similarity`, `hamming-full`): resumable there. */
export interface ReferenceSteps {
  workdir: string;
  /** Keep the blocks an interrupted run with the same options finished. */
  resume: boolean;
}

/** What a reference's blocks depend on besides the work directory's files. */
export interface ReferenceConfig extends Record<string, unknown> {
  "--threshold": number;
  /** Digest of the sampled documents (--sample-list), null: all pairs. */
  "--sample-list": string | null;
  /** The number of blocks, planned from the worker count of the run that started the step. */
  blocks: number;
}

export function sampleDigest(sampled: Uint8Array | null): string | null {
  return sampled === null ? null : createHash("sha256").update(sampled).digest("hex").slice(0, 16);
}

/**
 * Starts the reference step `name` in `steps`' work directory (null: not resumable, nothing
 * kept) and returns its configuration: the earlier run's block count on resume.
 */
export async function startReference(steps: ReferenceSteps | undefined, name: string, config: ReferenceConfig): Promise<{ step: StepDir | null; config: ReferenceConfig }> {
  if (steps === undefined) return { step: null, config };
  const step = { workdir: steps.workdir, name };
  return { step, config: await startStep(step, config, steps.resume, ["blocks"]) };
}

/**
 * Runs the blocks of the reference computation `name` on the pool, in order, as tasks of the executor
 * (executor/tasks.ts): with a step, each block's result is kept in the step's folder and
 * marked there, and a resumed run loads the finished blocks instead of computing them.
 */
export async function runBlocks<K extends "cosine" | "hamming">(
  name: string,
  step: StepDir | null,
  pool: TaskPool<ReferenceTasks>,
  kernel: K,
  tasks: readonly TaskArg<ReferenceTasks[K]>[],
  reporter: Reporter,
): Promise<TaskValue<ReferenceTasks[K]>[]> {
  type R = TaskValue<ReferenceTasks[K]>;
  const progress = reporter.progress(name, "blocks", tasks.length);
  let done = 0;
  const finished = (r: R) => (progress.update(++done), r);
  const stepTasks = tasks.map((task, k): StepTask<R> => {
    const file = step === null ? null : join(stepFolder(step), `${shardName(k)}.zst`);
    return {
      marker: stepMarker(name, k),
      async start() {
        const { result } = await pool.submit(kernel, task);
        return {
          result: result.then(async (r) => {
            if (file !== null) await writeRunFile(file, [r]);
            return finished(r);
          }),
        };
      },
      load: async () => finished(readRunFileSync<R>(file!)[0]),
      stats: () => ({}),
    };
  });
  const results = await runTasks(step?.workdir ?? null, stepTasks);
  progress.finish();
  return results;
}
