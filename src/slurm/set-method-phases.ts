import type { FeaturesConfig } from "../methods/sets/set-method.js";
import { type Step, markerDone, markersDone } from "../executor/step.js";
import { chunkTotal } from "../features/count-step.js";
import { createHash } from "node:crypto";
import { WorkerPool } from "../executor/pool.js";
import { stderrReporter } from "../executor/progress.js";
import { readRunConfig } from "../workdir/run-config.js";
import { runTasks } from "../executor/tasks.js";
import { timed } from "../executor/timing.js";
import { featuresStep, runMethod } from "../methods/sets/run-method.js";

import { planPhase } from "./plan-phase.js";

import type { SetMethodSettings, SlurmRunCommon } from "./slurm-run.js";

/**
 * A method other than lsh-cosine on Slurm: the chunk plan (plan-phase.ts), its features step
 * as an array of `--tasks` slices of the chunks (the tasks and markers of a local run, each
 * reading only its planned byte ranges of plain inputs), then one job that loads the features
 * and runs the method's search and outputs as `vertdup run --method` does (run-method.ts).
 */
export function setMethodPhases(workdir: string, settings: SlurmRunCommon & SetMethodSettings): Step[] {
  // The search job's marker names what decides its outputs: a submission with other options or
  // another -o runs it again; with --update not for another -o, so that the batch is appended once.
  const decides = settings.run.update === true ? { run: settings.run } : { run: settings.run, outdir: settings.outdir };
  const searchMarker = `search-${createHash("sha256").update(JSON.stringify(decides)).digest("hex").slice(0, 16)}`;
  return [
    planPhase(workdir),
    {
      name: "features",
      arraySize: settings.tasks,
      run: async ({ slice, workers, quiet }) => {
        const config = (await readRunConfig(workdir)) as unknown as FeaturesConfig;
        const pool = new WorkerPool("methods", workers);
        try {
          await timed(workdir, "features", slice, () => featuresStep(workdir, config, slice, pool, stderrReporter(quiet)));
        } finally {
          await pool.close();
        }
      },
      progress: async () => markersDone(workdir, "features-", await chunkTotal(workdir)),
    },
    {
      name: "search",
      run: async ({ slice, workers, quiet }) => {
        const inputs = (await readRunConfig(workdir)).inputs.map((i) => i.path);
        const exec = { ...settings.exec, workers, quiet };
        // Every features task is done (the job runs after the array succeeded): resuming loads them all.
        const search = () => timed(workdir, "search", slice, () => runMethod(inputs, workdir, settings.outdir, { ...settings.run, resume: true }, exec, stderrReporter(quiet)));
        // A task of the executor: a re-submission after it finished does not run it again (nor append a batch to an index twice).
        await runTasks(workdir, [{ marker: searchMarker, start: async () => ({ result: search() }), load: async () => undefined, stats: (m) => ({ outdir: settings.outdir, groups: m?.counts.groups }) }]);
      },
      progress: async () => markerDone(workdir, searchMarker),
    },
  ];
}
