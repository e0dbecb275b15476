import { createHash } from "node:crypto";
import type { ExecutionOptions } from "../../core/options.js";
import { markerDone, markersDone, type Pipeline } from "../../executor/pipeline.js";
import { stderrReporter } from "../../executor/progress.js";
import { runTasks } from "../../executor/tasks.js";
import { timed } from "../../executor/timing.js";
import { chunkPlanStep, chunkTotal } from "../../features/count-step.js";
import { readRunConfig } from "../../workdir/run-config.js";
import { featuresStep, runMethod } from "./run-method.js";
import type { FeaturesConfig, MethodRun, SetMethod } from "./set-method.js";

/** A set method's run (`slurm run --method`): what its search step runs over the features, and the reading options. */
export interface SetMethodSettings {
  method: SetMethod;
  run: MethodRun;
  /** Reading options of the features step (config.json holds what decides its files). */
  exec: ExecutionOptions;
  outdir: string;
  /** Array size of the features step. */
  tasks: number;
}

/**
 * A method other than lsh-cosine: the chunk plan, its features step as slices of the chunks
 * (each reading only its planned byte ranges of plain inputs), then one step that loads the
 * features and runs the method's search and outputs as `vertdup run --method` does (run-method.ts).
 *
 * ```
 * plan* → features → search
 * ```
 */
export function setMethodPipeline(workdir: string, settings: SetMethodSettings): Pipeline {
  // The search step's marker names what decides its outputs: a run with other options or
  // another -o runs it again; with --update not for another -o, so that the batch is appended once.
  const decides = settings.run.update === true ? { run: settings.run } : { run: settings.run, outdir: settings.outdir };
  const searchMarker = `search-${createHash("sha256").update(JSON.stringify(decides)).digest("hex").slice(0, 16)}`;
  return {
    workdir,
    start: async () => undefined,
    steps: [
      chunkPlanStep(workdir),
      {
        name: "features",
        arraySize: settings.tasks,
        pools: ["methods"],
        timing: "features",
        run: async ({ slice, quiet, context }) => {
          const config = (await readRunConfig(workdir)) as unknown as FeaturesConfig;
          await featuresStep(workdir, config, slice, context.pool("methods"), stderrReporter(quiet));
        },
        progress: async () => markersDone(workdir, "features-", await chunkTotal(workdir)),
      },
      {
        name: "search",
        run: async ({ slice, workers, quiet }) => {
          const inputs = (await readRunConfig(workdir)).inputs.map((i) => i.path);
          const exec = { ...settings.exec, workers, quiet };
          // Every features task is done (the step runs after them): resuming loads them all.
          const search = () => timed(workdir, "search", slice, () => runMethod(inputs, workdir, settings.outdir, { ...settings.run, resume: true }, exec, stderrReporter(quiet)));
          // A task of the executor: a run after it finished does not run it again (nor append a batch to an index twice).
          await runTasks(workdir, [{ marker: searchMarker, start: async () => ({ result: search() }), load: async () => undefined, stats: (m) => ({ outdir: settings.outdir, groups: m?.counts.groups }) }]);
        },
        progress: async () => markerDone(workdir, searchMarker),
      },
    ],
  };
}
