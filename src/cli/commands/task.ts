import { availableParallelism } from "node:os";
import type { Argv } from "yargs";
import { VertdupError } from "../../core/errors.js";

const builder = (y: Argv) =>
  y
    .positional("step", { type: "string", demandOption: true, describe: "the phase to run (one of the submitted method's)" })
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

/** One phase (or one array task's slice of it) of a run, as the Slurm batch scripts call it. */
export const taskCommand = {
  command: "task <step>",
  describe: false as const,
  builder,
  handler: async (a: Args) => {
    if (!Number.isInteger(a.count) || a.count < 1 || !Number.isInteger(a.index) || a.index < 0 || a.index >= a.count) {
      throw new VertdupError(`--index must be in [0, --count), got ${a.index} of ${a.count}`);
    }
    // Loaded here, not at start: the CLI loads only the modules of the command it runs.
    const [{ admitTask, releaseSlurmRun }, { submittedJob }, { JobNotFound, runJob }] = await Promise.all([
      import("../../workdir/lock.js"),
      import("../../methods/registry.js"),
      import("../../executor/slurm/jobs.js"),
    ]);
    await admitTask(a.w, a.token);
    const { kind, pipeline, lockedOutdir } = await submittedJob(a.w);
    let last: boolean;
    try {
      last = await runJob(pipeline, a.step, { index: a.index, count: a.count }, allocatedCores(), a.quiet);
    } catch (err) {
      if (!(err instanceof JobNotFound)) throw err;
      const { key, value } = kind;
      throw new VertdupError(`task ${a.step}: not a phase of this work directory's submission (${key} ${value}: ${err.names.join(", ")})`);
    }
    // The last job ends the run: its locks go.
    if (!last) return;
    if (lockedOutdir !== undefined) await releaseSlurmRun(lockedOutdir, a.token);
    await releaseSlurmRun(a.w, a.token);
  },
};
