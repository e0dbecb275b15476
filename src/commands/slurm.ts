import { resolve } from "node:path";
import type { Argv } from "yargs";
import { inputPaths, maxDocBytesFrom, pairsOutputFrom, plebOptionsFrom, prepareOptionsFrom, withOptions } from "../cli-options.js";
import { DEFAULT_TARGET_RECALL } from "../options.js";
import { VertdupError } from "../util/errors.js";

const runBuilder = (y: Argv) =>
  withOptions(
    y.positional("inputs", { type: "string", array: true, demandOption: true, describe: "corpus files on the shared filesystem" }),
    [
      "workdir", "outdir", "keep", "pairs", "pairs-limit",
      "column", "id-attr", "lowercase", "keep-numbers", "shingle-size", "bits", "weighting", "min-df", "max-df", "seed", "projection",
      "threshold", "beam", "shift-count", "iterations", "iterations-per-group", "verify", "cosine-threshold", "estimate-recall", "sample", "sampling",
      "tasks", "cpus-per-task", "partition", "array-parallelism", "time", "mem", "sbatch-arg", "chunk-size", "max-doc-bytes", "oversize", "dry-run",
    ],
    {
      workdir: { describe: "work directory on a filesystem all nodes share" },
      threshold: { default: undefined, describe: "minimum relative Hamming similarity [from --cosine-threshold, 0.9 with --no-verify]" },
    },
  );

type RunArgs = Awaited<ReturnType<typeof runBuilder>["argv"]>;

async function submitRun(a: RunArgs): Promise<void> {
  // Loaded here, not at start: the CLI loads only the modules of the command it runs.
  const [{ startPrepare }, { plebPlan }, { takeWorkdir }, { renderBatchScript }, { activeJobs, maxArraySize }, { runJobs, splitArrays, submitChain, writeBatchScripts }, { readSubmittedJobs, slurmDir, writeSlurmSettings, writeSubmittedJobs }, { ensureWritableDir }] = await Promise.all([
    import("../coordinator/prepare.js"),
    import("../coordinator/steps/pleb-step.js"),
    import("../coordinator/workdir-use.js"),
    import("../slurm/batch-script.js"),
    import("../slurm/sbatch.js"),
    import("../slurm/submit.js"),
    import("../slurm/slurm-run.js"),
    import("../util/output-dir.js"),
  ]);
  const inputs = inputPaths(a.inputs);
  if (inputs.includes("-")) throw new VertdupError("slurm run cannot read standard input: give the corpus as files on the shared filesystem");
  const workdir = resolve(a.w);
  const outdir = resolve(a.o);
  const pleb = plebOptionsFrom(a, a.bits);
  const iterationsPerGroup = a["iterations-per-group"];
  const scriptOptions = {
    partition: a.partition,
    arrayParallelism: a["array-parallelism"],
    time: a.time,
    mem: a.mem,
    cpusPerTask: a["cpus-per-task"],
    extra: a["sbatch-arg"],
    logDir: `${slurmDir(workdir)}/logs`,
  };
  // --estimate-recall: a calibrate job after the outputs, for --target-recall's default (Slurm runs every group).
  const calibrate = a["estimate-recall"] ? { calibrate: { targetRecall: DEFAULT_TARGET_RECALL, sampling: a.sampling } } : {};
  const settings = (token: string) => ({ pleb, iterationsPerGroup, keep: a.keep, pairsLimit: pairsOutputFrom(a).limit, outdir, tasks: a.tasks, token, ...calibrate });
  const maxArray = await maxArraySize();
  const render = (token: string) => {
    const stages = splitArrays(runJobs(workdir, settings(token), plebPlan(workdir, pleb, iterationsPerGroup).groups), maxArray);
    const jobs = stages.flat();
    return { stages, jobs, texts: jobs.map((job) => renderBatchScript(job, scriptOptions)) };
  };
  // Rendered once before any work, so that a value no script can carry stops the submission
  // before the work directory is made; again with the lock's token.
  render("0".repeat(16));
  // Kept after this process ends: the jobs carry its token. An earlier submission's lock is
  // taken over once none of its jobs is queued or running.
  const lock = await takeWorkdir(workdir, {
    create: true,
    continueWith: "submit the same command again to continue",
    slurm: true,
    slurmRunOver: async () => (await activeJobs(Object.values(await readSubmittedJobs(workdir)))).length === 0,
  });
  const { stages, jobs, texts } = render(lock.token);
  await ensureWritableDir(outdir);
  // Re-submitting into the same work directory resumes: finished tasks are skipped.
  await startPrepare(inputs.map((i) => resolve(i)), workdir, prepareOptionsFrom(a), { workers: a["cpus-per-task"], chunkBytes: a["chunk-size"], maxDocBytes: maxDocBytesFrom(a), oversize: a.oversize }, true);
  await writeSlurmSettings(workdir, settings(lock.token));
  const scripts = await writeBatchScripts(workdir, jobs, texts);
  if (a["dry-run"]) {
    process.stdout.write(`batch scripts written (not submitted):\n${scripts.join("\n")}\n`);
    return;
  }
  const ids = await submitChain(stages, scripts);
  await writeSubmittedJobs(workdir, ids);
  process.stdout.write(`submitted: ${jobs.map((j) => `${j.name} ${ids[j.name]}`).join(", ")}\nfollow with: vertdup slurm status -w ${workdir}\n`);
}

const statusBuilder = (y: Argv) => withOptions(y, ["workdir"], { workdir: { describe: "work directory of the submitted run" } });

async function showStatus(workdir: string): Promise<void> {
  const { runStatus } = await import("../slurm/status.js");
  const s = await runStatus(workdir);
  const lines = s.phases.map((p) => `${p.phase.padEnd(10)} ${p.done}/${p.total ?? "?"}${p.total !== undefined && p.done >= p.total ? " done" : ""}`);
  lines.push(`${"output".padEnd(10)} ${s.outputs ? "done" : "not yet"}`);
  lines.push(s.active.length > 0 ? `jobs still queued or running: ${s.active.join(", ")}` : "no job of this run is queued or running");
  process.stdout.write(lines.join("\n") + "\n");
}

/** `vertdup slurm run|status`: the pipeline as Slurm job arrays with dependencies. */
export const slurmCommand = {
  command: "slurm <action>",
  describe: "run on a Slurm cluster: job arrays with dependencies on a shared filesystem",
  builder: (y: Argv) =>
    y
      .command("run <inputs..>", "write the batch scripts and submit them (re-submitting resumes)", runBuilder, submitRun)
      .command("status", "progress of a submitted run, from its markers", statusBuilder, (a) => showStatus(a.w))
      .demandCommand(1),
  handler: () => undefined,
};
