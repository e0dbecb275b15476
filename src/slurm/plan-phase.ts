import type { Step } from "../executor/step.js";
import { existsSync } from "node:fs";
import { WorkerPool } from "../executor/pool.js";
import { stderrReporter } from "../executor/progress.js";
import { readRunConfig } from "../workdir/run-config.js";
import { planStep } from "../features/count-step.js";
import { chunkPlanFile } from "../corpus/chunk-plan.js";
import { timed } from "../executor/timing.js";

/**
 * The first job of a run's reading: the plain inputs cut and measured once (the chunk plan),
 * so that each task of the reading array reads only its own byte ranges of them.
 */
export function planPhase(workdir: string): Step {
  return {
    name: "plan",
    run: async ({ slice, workers, quiet }) => {
      const config = await readRunConfig(workdir);
      const pool = new WorkerPool("prepare", workers);
      try {
        await timed(workdir, "plan", slice, () => planStep(workdir, config, pool, stderrReporter(quiet)));
      } finally {
        await pool.close();
      }
    },
    progress: async () => ({ done: existsSync(chunkPlanFile(workdir)) ? 1 : 0, total: 1 }),
  };
}
