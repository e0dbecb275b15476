import { availableParallelism } from "node:os";
import type { Argv } from "yargs";
import type { Slice } from "../coordinator/workdir.js";
import { VertdupError } from "../util/errors.js";

const STEPS = ["count", "vocabulary", "sign", "merge", "pleb", "output", "calibrate"] as const;
type Step = (typeof STEPS)[number];

const builder = (y: Argv) =>
  y
    .positional("step", { choices: STEPS, demandOption: true, describe: "the phase to run" })
    .option("w", { alias: "workdir", type: "string", demandOption: true, describe: "work directory of a submitted run" })
    .option("index", { type: "number", default: 0, describe: "this task's index in its array" })
    .option("count", { type: "number", default: 1, describe: "tasks in the array" })
    .option("token", { type: "string", demandOption: true, describe: "token of the submitted run's work directory lock" })
    .option("quiet", { type: "boolean", default: true, describe: "plain log lines" });

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

/** Worker threads of a task: the cores Slurm allocated to it, else the machine's. */
function allocatedCores(): number {
  const n = Number(process.env.SLURM_CPUS_PER_TASK);
  return Number.isInteger(n) && n > 0 ? n : availableParallelism();
}

async function runStep(step: Step, workdir: string, slice: Slice, quiet: boolean): Promise<void> {
  // Loaded here, not at start: the CLI loads only the modules of the command it runs.
  const [{ WorkerPool }, { readPrepareManifest }, { stderrReporter }, { readRunConfig }, { countStep }, { mergeStep, writePrepareManifest }, { slurmCalibrate, slurmOutput }, { plebPhaseName, plebPlan, plebStep }, { signStep }, { timed }, { vocabularyStep }, { releaseSlurmRun }, { loadSignatureStore }, { readSlurmSettings }] = await Promise.all([
    import("../coordinator/pool.js"),
    import("../coordinator/prepare-manifest.js"),
    import("../coordinator/progress.js"),
    import("../coordinator/run-config.js"),
    import("../coordinator/steps/count-step.js"),
    import("../coordinator/steps/merge-step.js"),
    import("../slurm/calibrate-phase.js"),
    import("../coordinator/steps/pleb-step.js"),
    import("../coordinator/steps/sign-step.js"),
    import("../executor/timing.js"),
    import("../coordinator/steps/vocabulary-step.js"),
    import("../coordinator/workdir-lock.js"),
    import("../runs/signature-store.js"),
    import("../slurm/slurm-run.js"),
  ]);
  const reporter = stderrReporter(quiet);
  const workers = allocatedCores();
  const config = await readRunConfig(workdir);
  if (step === "count" || step === "sign") {
    const pool = new WorkerPool("prepare", workers);
    try {
      await timed(workdir, step, slice, async () => {
        if (step === "count") await countStep(workdir, config, slice, pool, reporter);
        else await signStep(workdir, config, slice, pool, reporter);
      });
    } finally {
      await pool.close();
    }
    return;
  }
  if (step === "vocabulary") {
    await timed(workdir, step, slice, () => vocabularyStep(workdir, config, reporter));
    return;
  }
  if (step === "merge") {
    await timed(workdir, step, slice, () => mergeStep(workdir));
    await writePrepareManifest(workdir, config);
    return;
  }
  const settings = await readSlurmSettings(workdir);
  const prepared = await readPrepareManifest(workdir);
  const store = loadSignatureStore(workdir, prepared.options.bits);
  const plan = plebPlan(workdir, settings.pleb, settings.iterationsPerGroup);
  if (step === "pleb") {
    const pool = new WorkerPool("pleb", workers);
    try {
      await timed(workdir, plebPhaseName(plan), slice, () => plebStep(workdir, store, plan, slice, { workers }, pool, reporter));
    } finally {
      await pool.close();
    }
    return;
  }
  if (step === "output") await slurmOutput(workdir, settings, prepared, store, plan, workers, reporter);
  else if (settings.calibrate !== undefined) await slurmCalibrate(workdir, { ...settings, calibrate: settings.calibrate }, workers);
  // The last job of the chain ends the run: its lock goes.
  if (step === "calibrate" || settings.calibrate === undefined) await releaseSlurmRun(workdir, settings.token);
}

/** One phase (or one array task's slice of it) of a run, as the Slurm batch scripts call it. */
export const taskCommand = {
  command: "task <step>",
  describe: false as const,
  builder,
  handler: async (a: Args) => {
    if (!Number.isInteger(a.count) || a.count < 1 || !Number.isInteger(a.index) || a.index < 0 || a.index >= a.count) {
      throw new VertdupError(`--index must be in [0, --count), got ${a.index} of ${a.count}`);
    }
    const { admitTask } = await import("../coordinator/workdir-lock.js");
    await admitTask(a.w, a.token);
    await runStep(a.step as Step, a.w, { index: a.index, count: a.count }, a.quiet);
  },
};
