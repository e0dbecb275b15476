import { resolve } from "node:path";
import type { Argv } from "yargs";
import {
  inputPaths,
  plebOptionsFrom,
  prepareOptionsFrom,
  withPlebOptions,
  withPrepareOptions,
} from "../cli-options.js";
import { startPrepare } from "../coordinator/prepare.js";
import { plebPlan } from "../coordinator/steps/pleb-step.js";
import { KEEP_OPTION } from "../methods/method-cli.js";
import { DEFAULT_CHUNK_BYTES } from "../options.js";
import { takeWorkdir } from "../coordinator/workdir-use.js";
import { activeJobs } from "../slurm/sbatch.js";
import { runStatus } from "../slurm/status.js";
import { runJobs, submitChain, writeBatchScripts } from "../slurm/submit.js";
import { readSubmittedJobs, slurmDir, writeSlurmSettings, writeSubmittedJobs } from "../slurm/slurm-run.js";
import { VertdupError } from "../util/errors.js";
import { ensureWritableDir } from "../util/output-dir.js";

const runBuilder = (y: Argv) =>
  withPlebOptions(withPrepareOptions(y))
    .positional("inputs", { type: "string", array: true, demandOption: true, describe: "corpus files on the shared filesystem" })
    .option("w", { alias: "workdir", type: "string", demandOption: true, describe: "work directory on a filesystem all nodes share" })
    .option("o", { alias: "outdir", type: "string", demandOption: true, describe: "output directory" })
    .option(...KEEP_OPTION)
    .option("seed", { type: "number", default: 1, describe: "seed of the random vectors and transpositions" })
    .option("tasks", { type: "number", default: 8, describe: "array tasks of the reading and signing phases" })
    .option("cpus-per-task", { type: "number", default: 2, describe: "cores per task (its worker threads)" })
    .option("partition", { type: "string", describe: "Slurm partition" })
    .option("array-parallelism", { type: "number", describe: "at most this many array tasks at once" })
    .option("time", { type: "string", describe: "time limit of each job (sbatch --time)" })
    .option("mem", { type: "string", describe: "memory of each job (sbatch --mem)" })
    .option("sbatch-arg", { type: "string", array: true, default: [] as string[], describe: "extra #SBATCH argument, repeatable" })
    .option("chunk-size", { type: "number", default: DEFAULT_CHUNK_BYTES, describe: "bytes of corpus per shard" })
    .option("dry-run", { type: "boolean", default: false, describe: "write the batch scripts, submit nothing" });

type RunArgs = Awaited<ReturnType<typeof runBuilder>["argv"]>;

async function submitRun(a: RunArgs): Promise<void> {
  const inputs = inputPaths(a.inputs);
  if (inputs.includes("-")) throw new VertdupError("slurm run cannot read standard input: give the corpus as files on the shared filesystem");
  if (!Number.isInteger(a.tasks) || a.tasks < 1) throw new VertdupError(`--tasks must be a positive integer, got ${a.tasks}`);
  const workdir = resolve(a.w);
  const outdir = resolve(a.o);
  await ensureWritableDir(outdir);
  const pleb = plebOptionsFrom(a);
  // Kept after this process ends: the jobs carry its token. An earlier submission's lock is
  // taken over once none of its jobs is queued or running.
  const lock = await takeWorkdir(workdir, {
    create: true,
    slurm: true,
    slurmRunOver: async () => (await activeJobs(Object.values(await readSubmittedJobs(workdir)))).length === 0,
  });
  const iterationsPerGroup = a["iterations-per-group"];
  // Re-submitting into the same work directory resumes: finished tasks are skipped.
  await startPrepare(inputs.map((i) => resolve(i)), workdir, prepareOptionsFrom(a), { workers: a["cpus-per-task"], chunkBytes: a["chunk-size"] }, true);
  const run = { pleb, iterationsPerGroup, keep: a.keep, outdir, tasks: a.tasks, token: lock.token };
  await writeSlurmSettings(workdir, run);
  const jobs = runJobs(workdir, run, plebPlan(workdir, pleb, iterationsPerGroup).groups);
  const scripts = await writeBatchScripts(workdir, jobs, {
    partition: a.partition,
    arrayParallelism: a["array-parallelism"],
    time: a.time,
    mem: a.mem,
    cpusPerTask: a["cpus-per-task"],
    extra: a["sbatch-arg"],
    logDir: `${slurmDir(workdir)}/logs`,
  });
  if (a["dry-run"]) {
    process.stdout.write(`batch scripts written (not submitted):\n${scripts.join("\n")}\n`);
    return;
  }
  const ids = await submitChain(jobs, scripts);
  await writeSubmittedJobs(workdir, ids);
  process.stdout.write(`submitted: ${jobs.map((j) => `${j.name} ${ids[j.name]}`).join(", ")}\nfollow with: vertdup slurm status -w ${workdir}\n`);
}

const statusBuilder = (y: Argv) => y.option("w", { alias: "workdir", type: "string", demandOption: true, describe: "work directory of the submitted run" });

async function showStatus(workdir: string): Promise<void> {
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
