import { type StepRun, type Step, markerDone, markersDone } from "../executor/step.js";
import { chunkTotal, countStep } from "../features/count-step.js";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { WorkerPool } from "../executor/pool.js";
import { readPrepareManifest } from "../features/prepare-manifest.js";
import { stderrReporter } from "../executor/progress.js";
import { readRunConfig } from "../workdir/run-config.js";
import { mergeStep, writePrepareManifest } from "../runs/merge-step.js";
import { plebPhaseName, plebPlan, plebStep } from "../pleb/pleb-step.js";
import { signStep } from "../sketch/sign-step.js";
import { vocabularyStep } from "../features/vocabulary-step.js";
import { timed } from "../executor/timing.js";
import { loadSignatureStore } from "../runs/signature-store.js";
import { CALIBRATION_FILE } from "../eval/calibration.js";
import { slurmCalibrate, slurmOutput } from "./calibrate-phase.js";

import { planPhase } from "./plan-phase.js";

import type { LshCosineSettings, SlurmRunCommon } from "./slurm-run.js";

/** Runs a reading phase's slice with a pool of the task's workers. */
async function withPool(name: string, workers: number, body: (pool: WorkerPool) => Promise<unknown>): Promise<void> {
  const pool = new WorkerPool(name, workers);
  try {
    await body(pool);
  } finally {
    await pool.close();
  }
}

/**
 * The default method on Slurm: the chunk plan (the plain inputs cut and measured once), the
 * preparatory shards (count) and signatures (sign) as arrays
 * of `--tasks` slices with the vocabulary between them, the merge, PLEB's iteration groups as
 * an array, the outputs, and with `--estimate-recall` the calibration (calibration.tsv, report.html).
 */
export function lshCosinePhases(workdir: string, settings: SlurmRunCommon & LshCosineSettings): Step[] {
  const plan = plebPlan(workdir, settings.pleb, settings.iterationsPerGroup);
  const calibrate = settings.calibrate;
  const store = async () => loadSignatureStore(workdir, (await readPrepareManifest(workdir)).options.bits);
  const reading = (name: "count" | "sign"): Step => ({
    name,
    arraySize: settings.tasks,
    run: async ({ slice, workers, quiet }: StepRun) => {
      const config = await readRunConfig(workdir);
      const reporter = stderrReporter(quiet);
      await withPool("prepare", workers, (pool) =>
        timed(workdir, name, slice, async () => {
          if (name === "count") await countStep(workdir, config, slice, pool, reporter);
          else await signStep(workdir, config, slice, pool, reporter);
        }),
      );
    },
    progress: async () => markersDone(workdir, `${name}-`, await chunkTotal(workdir)),
  });
  return [
    planPhase(workdir),
    reading("count"),
    {
      name: "vocabulary",
      run: async ({ slice, quiet }) => {
        const config = await readRunConfig(workdir);
        await timed(workdir, "vocabulary", slice, () => vocabularyStep(workdir, config, stderrReporter(quiet)));
      },
      progress: async () => markerDone(workdir, "vocabulary"),
    },
    reading("sign"),
    {
      name: "merge",
      run: async ({ slice }) => {
        await timed(workdir, "merge", slice, () => mergeStep(workdir));
        await writePrepareManifest(workdir, await readRunConfig(workdir));
      },
      progress: async () => markerDone(workdir, "merge"),
    },
    {
      name: "pleb",
      arraySize: plan.groups,
      run: async ({ slice, workers, quiet }) => {
        const signatures = await store();
        await withPool("pleb", workers, (pool) => timed(workdir, plebPhaseName(plan), slice, () => plebStep(workdir, signatures, plan, slice, { workers }, pool, stderrReporter(quiet))));
      },
      progress: () => markersDone(workdir, `${plebPhaseName(plan)}-group-`, plan.groups),
    },
    {
      name: "output",
      run: async ({ workers, quiet }) => {
        await slurmOutput(workdir, settings, await readPrepareManifest(workdir), await store(), plan, workers, stderrReporter(quiet));
      },
      progress: async () => markerDone(workdir, `output-${plan.fingerprint}`),
    },
    ...(calibrate === undefined
      ? []
      : [
          {
            name: "calibrate",
            run: async ({ workers }: StepRun) => slurmCalibrate(workdir, { ...settings, calibrate }, workers),
            progress: async () => ({ done: existsSync(join(settings.outdir, CALIBRATION_FILE)) ? 1 : 0, total: 1 }),
          },
        ]),
  ];
}
