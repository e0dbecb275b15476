import { resolve } from "node:path";
import type { Argv } from "yargs";
import { DEFAULT_TARGET_RECALL } from "../../core/options.js";
import { METHOD_OPTIONS, METHOD_OPTION_VARIANTS, inputPaths, maxDocBytesFrom, noStdio, withOptions } from "../options.js";
import { refuseUncalibrated } from "../../methods/method.js";
import type { SlurmSettings as ScriptOptions } from "../../executor/slurm/batch-script.js";
import type { Pipeline } from "../../executor/pipeline.js";
import type { JobSettings } from "../../methods/registry.js";
import { VertdupError } from "../../core/errors.js";
import { parseSize } from "../../util/size.js";
import { defaultReportPath, PARAGRAPH_OPTIONS, PARAGRAPH_OPTION_VARIANTS, paragraphOptionsFrom } from "./paragraphs.js";

/** The options of a submission: where its work goes and how its jobs are run. */
const SLURM_OPTIONS = ["workdir", "tasks", "cpus-per-task", "partition", "array-parallelism", "time", "mem", "sbatch-arg", "dry-run"] as const;

/** The options `scriptOptionsFrom` reads. */
type SlurmJobArgs = { partition?: string; "array-parallelism"?: number; time?: string; mem?: string; "cpus-per-task": number; "sbatch-arg": string[] };

const runBuilder = (y: Argv) =>
  withOptions(
    y.positional("inputs", { type: "string", array: true, demandOption: true, describe: "corpus files on the shared filesystem" }),
    [...METHOD_OPTIONS, ...SLURM_OPTIONS, "outdir", "estimate-recall", "sample", "sampling", "max-width", "max-sample", "against", "update", "against-scan"],
    {
      ...METHOD_OPTION_VARIANTS,
      workdir: { describe: "work directory on a filesystem all nodes share" },
    },
  );

type RunArgs = Awaited<ReturnType<typeof runBuilder>["argv"]>;

async function submitRun(a: RunArgs): Promise<void> {
  if (a["estimate-recall"]) refuseUncalibrated(a.method);
  // Loaded here, not at start: the CLI loads only the modules of the command it runs.
  const [{ slurmDir }, { runRequestFrom }, { checkMethodJob, methodJob }, { checkAgainstUse }, { checkReadable }] = await Promise.all([
    import("../../executor/slurm/settings.js"),
    import("../method-options.js"),
    import("../../methods/registry.js"),
    import("../../workdir/index-store.js"),
    import("../../corpus/open-input.js"),
  ]);
  const against = (a.against ?? []).map((dir) => resolve(dir));
  const inputs = inputPaths(a.inputs);
  if (inputs.includes("-")) throw new VertdupError("slurm run cannot read standard input: give the corpus as files on the shared filesystem");
  // Before -w and -o are made: a missing input leaves neither behind.
  for (const input of inputs) await checkReadable(input);
  const workdir = resolve(a.w);
  const outdir = resolve(a.o);
  const exec = { chunkBytes: a["chunk-size"], maxDocBytes: maxDocBytesFrom(a), oversize: a.oversize, iterationsPerGroup: a["iterations-per-group"], memory: parseSize(a.memory, "memory") };
  checkAgainstUse(against, { update: a.update, workdir });
  // Re-submitting into the same work directory resumes (a run --against starts over, as run --against does).
  // A work directory given to `run -w` is left as an index of the inputs: so is this one.
  const place = { inputs: inputs.map((i) => resolve(i)), outdir, against, report: true, resume: against.length === 0, saveIndex: true, calibrateTo: a["estimate-recall"] ? DEFAULT_TARGET_RECALL : undefined, tasks: a.tasks, exec };
  const job = methodJob(runRequestFrom(a, place));
  // Said before any work; the job that reads the indices reads them again under their locks.
  await checkMethodJob(job, workdir);
  // Re-submitting into the same work directory resumes: finished tasks are skipped. The -o is locked (made) for the jobs.
  await submit(workdir, job, scriptOptionsFrom(a, workdir, slurmDir), a["dry-run"], (pipeline) => startUnlessUnit(pipeline, a["cpus-per-task"]), outdir);
}

/** The sbatch settings of every job of a submission. */
function scriptOptionsFrom(a: SlurmJobArgs, workdir: string, slurmDir: (workdir: string) => string): ScriptOptions {
  return {
    partition: a.partition,
    arrayParallelism: a["array-parallelism"],
    time: a.time,
    mem: a.mem,
    cpusPerTask: a["cpus-per-task"],
    extra: a["sbatch-arg"],
    logDir: `${slurmDir(workdir)}/logs`,
  };
}

/** Submits the pipeline of `job` into `workdir` (executor/slurm/submit.ts), `prepare` run under the work directory's lock (and `outdir`'s). */
async function submit(workdir: string, job: JobSettings, scriptOptions: ScriptOptions, dryRun: boolean, prepare: (pipeline: Pipeline) => Promise<void>, outdir?: string): Promise<void> {
  const [{ pipelineOf }, { submitPipeline }] = await Promise.all([import("../../methods/registry.js"), import("../../executor/slurm/submit.js")]);
  const pipeline = pipelineOf(workdir, job);
  await submitPipeline(pipeline, (token) => ({ ...job, token }), scriptOptions, dryRun, () => prepare(pipeline), outdir);
}

/** Records the run's configuration at submission, as a local run does at its start; a pipeline run as one job starts in it. */
async function startUnlessUnit(pipeline: Pipeline, workers: number): Promise<void> {
  if (pipeline.unit !== undefined) return;
  const { StepContext } = await import("../../executor/pipeline.js");
  await pipeline.start(new StepContext(workers));
}

const paragraphsBuilder = (y: Argv) =>
  withOptions(y.positional("inputs", { type: "string", array: true, demandOption: true, describe: "corpus files on the shared filesystem" }), [...PARAGRAPH_OPTIONS, ...SLURM_OPTIONS], {
    ...PARAGRAPH_OPTION_VARIANTS,
    output: { describe: "output corpus on the shared filesystem (.vert, .gz, .zst)", check: noStdio },
    workdir: { describe: "work directory on a filesystem all nodes share (left as an index of the inputs' n-grams)" },
    tasks: { describe: "array tasks of the n-gram phase (at most 10000)" },
  });

type ParagraphsArgs = Awaited<ReturnType<typeof paragraphsBuilder>["argv"]>;

/** `slurm paragraphs`: the paragraph job's pipeline, its n-gram step as a job array. */
async function submitParagraphs(a: ParagraphsArgs): Promise<void> {
  const inputs = inputPaths(a.inputs);
  if (inputs.includes("-")) throw new VertdupError("slurm paragraphs cannot read standard input: give the corpus as files on the shared filesystem");
  const [{ paragraphSettings }, { checkJob }, { openIndices }, { slurmDir }, { StepContext }] = await Promise.all([
    import("../../paragraph-dedup/pipeline.js"),
    import("../../paragraph-dedup/start.js"),
    import("../../paragraph-dedup/ngram-index.js"),
    import("../../executor/slurm/settings.js"),
    import("../../executor/pipeline.js"),
  ]);
  const workdir = resolve(a.w);
  const output = resolve(a.o);
  const reportPath = a.report === undefined ? defaultReportPath(output) : resolve(a.report);
  const against = (a.against ?? []).map((dir) => resolve(dir));
  const exec = { chunkBytes: a["chunk-size"], maxDocBytes: maxDocBytesFrom(a), oversize: a.oversize };
  // Submitted again, it resumes: the chunks whose n-grams are saved are not read again.
  const run = { workdir, reportPath, against, update: a.update, resume: true, memory: parseSize(a.memory, "memory") };
  const job = paragraphSettings(inputs.map((i) => resolve(i)), output, paragraphOptionsFrom(a), exec, run, a.tasks);
  // Said before any work; the submission (configuration, digests) and the jobs read the indices again under their locks.
  await checkJob(job, workdir, false);
  await openIndices(against, job.options);
  await submit(workdir, job, scriptOptionsFrom(a, workdir, slurmDir), a["dry-run"], async (pipeline) => {
    const context = new StepContext(a["cpus-per-task"]);
    try {
      await pipeline.start(context);
    } finally {
      await context.close();
    }
  });
}

const statusBuilder = (y: Argv) => withOptions(y, ["workdir"], { workdir: { describe: "work directory of the submitted run" } });

async function showStatus(workdir: string): Promise<void> {
  const [{ runStatus }, { submittedJob }] = await Promise.all([import("../../executor/slurm/status.js"), import("../../methods/registry.js")]);
  const { kind, pipeline } = await submittedJob(workdir);
  const s = await runStatus(pipeline);
  const lines = [`${kind.key.padEnd(10)} ${kind.value}`, ...s.phases.map((p) => `${p.phase.padEnd(10)} ${p.done}/${p.total ?? "?"}${p.total !== undefined && p.done >= p.total ? " done" : ""}`)];
  lines.push(s.active.length > 0 ? `jobs still queued or running: ${s.active.join(", ")}` : "no job of this run is queued or running");
  process.stdout.write(lines.join("\n") + "\n");
}

/** `vertdup slurm run|paragraphs|status`: the pipeline (or the paragraph job) as Slurm job arrays with dependencies. */
export const slurmCommand = {
  command: "slurm <action>",
  describe: "run on a Slurm cluster: job arrays with dependencies on a shared filesystem",
  builder: (y: Argv) =>
    y
      .command("run <inputs..>", "write the batch scripts and submit them (re-submitting resumes)", (y: Argv) => runBuilder(y).example("vertdup slurm run corpus.vert.gz -w /shared/w -o /shared/out --tasks 16", "deduplicate on the cluster (every --method); the work directory and outputs on a shared filesystem").example("vertdup slurm run batch.vert.gz --against /shared/base.idx --update -w /shared/w-01 -o /shared/out-01 --dry-run", "write the batch scripts of a monthly batch without submitting them"), submitRun)
      .command("paragraphs <inputs..>", "submit vertdup paragraphs as jobs: the n-gram pass as an array, then the repeats and output passes (re-submitting resumes)", (y: Argv) => paragraphsBuilder(y).example("vertdup slurm paragraphs corpus.vert.gz -w /shared/pw -o /shared/corpus.para.vert", "vertdup paragraphs as Slurm jobs"), submitParagraphs)
      .command("status", "progress of a submitted run, from its markers", (y: Argv) => statusBuilder(y).example("vertdup slurm status -w /shared/w", "which steps of a submitted run are done, which jobs still queued"), (a) => showStatus(a.w))
      .demandCommand(1).example("vertdup slurm run corpus.vert.gz -w /shared/w -o /shared/out", "submit a run").example("vertdup slurm status -w /shared/w", "follow it"),
  handler: () => undefined,
};
