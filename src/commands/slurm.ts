import { resolve } from "node:path";
import type { Argv } from "yargs";
import { DEFAULT_TARGET_RECALL } from "../options.js";
import { METHOD_OPTIONS, METHOD_OPTION_VARIANTS, inputPaths, maxDocBytesFrom, pairsOutputFrom, plebOptionsFrom, prepareOptionsFrom, sampleGrowthFrom, withOptions } from "../cli-options.js";
import { refuseUncalibrated } from "../eval/calibration.js";
import { VertdupError } from "../util/errors.js";

const runBuilder = (y: Argv) =>
  withOptions(
    y.positional("inputs", { type: "string", array: true, demandOption: true, describe: "corpus files on the shared filesystem" }),
    [...METHOD_OPTIONS, "workdir", "outdir", "estimate-recall", "sample", "sampling", "max-width", "max-sample", "against", "update", "tasks", "cpus-per-task", "partition", "array-parallelism", "time", "mem", "sbatch-arg", "dry-run"],
    {
      ...METHOD_OPTION_VARIANTS,
      workdir: { describe: "work directory on a filesystem all nodes share" },
    },
  );

type RunArgs = Awaited<ReturnType<typeof runBuilder>["argv"]>;

async function submitRun(given: RunArgs): Promise<void> {
  if (given["estimate-recall"]) refuseUncalibrated(given.method);
  // Loaded here, not at start: the CLI loads only the modules of the command it runs.
  const [{ startPrepare }, { takeWorkdir }, { renderBatchScript }, { activeJobs, maxArraySize }, { phaseJobs, splitArrays, submitChain, writeBatchScripts }, { readSubmittedJobs, slurmDir, writeSlurmSettings, writeSubmittedJobs }, { slurmPhases }, { keepPolicy, methodRunFrom, withMethodDefaults }, { checkAgainst, featuresConfig, readIndices, startFeatures }, { ensureWritableDir }] = await Promise.all([
    import("../coordinator/prepare.js"),
    import("../coordinator/workdir-use.js"),
    import("../slurm/batch-script.js"),
    import("../slurm/sbatch.js"),
    import("../slurm/submit.js"),
    import("../slurm/slurm-run.js"),
    import("../slurm/phases.js"),
    import("../methods/method-cli.js"),
    import("../methods/run-method.js"),
    import("../util/output-dir.js"),
  ]);
  const against = (given.against ?? []).map((dir) => resolve(dir));
  if (given.method === "lsh-cosine" && (against.length > 0 || given.update)) {
    throw new VertdupError(`slurm run ${against.length > 0 ? "--against" : "--update"} takes --method exact, simhash384, minhash or paragraphs: lsh-cosine against an index runs with vertdup run`);
  }
  const a = withMethodDefaults({ ...given, keep: keepPolicy(given.keep, against) });
  const inputs = inputPaths(a.inputs);
  if (inputs.includes("-")) throw new VertdupError("slurm run cannot read standard input: give the corpus as files on the shared filesystem");
  const workdir = resolve(a.w);
  const outdir = resolve(a.o);
  const exec = { workers: a["cpus-per-task"], chunkBytes: a["chunk-size"], maxDocBytes: maxDocBytesFrom(a), oversize: a.oversize };
  const scriptOptions = {
    partition: a.partition,
    arrayParallelism: a["array-parallelism"],
    time: a.time,
    mem: a.mem,
    cpusPerTask: a["cpus-per-task"],
    extra: a["sbatch-arg"],
    logDir: `${slurmDir(workdir)}/logs`,
  };
  const common = { outdir, tasks: a.tasks };
  // A work directory given to `run -w` is left as an index of the inputs: so is this one.
  const methodSettings =
    a.method === "lsh-cosine"
      ? {
          method: a.method,
          pleb: plebOptionsFrom({ ...a, threshold: given.threshold }, a.bits),
          iterationsPerGroup: a["iterations-per-group"],
          keep: a.keep,
          pairsLimit: pairsOutputFrom(a).limit,
          // --estimate-recall: a calibrate job after the outputs, for --target-recall's default (Slurm runs every group).
          ...(a["estimate-recall"] ? { calibrate: { targetRecall: DEFAULT_TARGET_RECALL, sampling: a.sampling, ...sampleGrowthFrom(a) } } : {}),
        }
      : // --estimate-recall: the search job calibrates after the outputs, as `run --estimate-recall` does (the features it holds are the sets compared).
        { method: a.method, run: { ...methodRunFrom(a), against, update: a.update, saveIndex: true, ...(a["estimate-recall"] ? { calibrate: { sample: a.sample, targetRecall: DEFAULT_TARGET_RECALL, sampling: a.sampling, ...sampleGrowthFrom(a) } } : {}) }, exec };
  const settings = (token: string) => ({ ...common, ...methodSettings, token });
  if (methodSettings.method !== "lsh-cosine") {
    // Said before any work; the search job reads the indices again under their locks.
    await checkAgainst(methodSettings.run, workdir);
    await readIndices(methodSettings.run);
  }
  const maxArray = await maxArraySize();
  const render = (token: string) => {
    const stages = splitArrays(phaseJobs(workdir, slurmPhases(workdir, settings(token)), token), maxArray);
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
  const resolved = inputs.map((i) => resolve(i));
  if (methodSettings.method === "lsh-cosine") await startPrepare(resolved, workdir, prepareOptionsFrom(a), exec, true);
  else await startFeatures(workdir, await featuresConfig(resolved, methodSettings.method, methodSettings.run.features, exec), true);
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
  const lines = [`method     ${s.method}`, ...s.phases.map((p) => `${p.phase.padEnd(10)} ${p.done}/${p.total ?? "?"}${p.total !== undefined && p.done >= p.total ? " done" : ""}`)];
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
