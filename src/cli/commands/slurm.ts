import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Argv } from "yargs";
import type { RunConfig } from "../../workdir/run-config.js";
import { DEFAULT_TARGET_RECALL } from "../../core/options.js";
import { METHOD_OPTIONS, METHOD_OPTION_VARIANTS, inputPaths, maxDocBytesFrom, noStdio, pairsOutputFrom, plebOptionsFrom, prepareOptionsFrom, sampleGrowthFrom, withOptions } from "../options.js";
import { refuseUncalibrated } from "../../eval/calibration.js";
import type { SlurmSettings as ScriptOptions } from "../../slurm/batch-script.js";
import type { SubmissionSettings } from "../../slurm/slurm-run.js";
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

async function submitRun(given: RunArgs): Promise<void> {
  if (given["estimate-recall"]) refuseUncalibrated(given.method);
  // Loaded here, not at start: the CLI loads only the modules of the command it runs.
  const [{ startPrepare }, { slurmDir }, { keepPolicy, methodRunFrom, withMethodDefaults }, { checkAgainst, featuresConfig, readIndices, startFeatures }, { ensureWritableDir }, { checkAgainstUse }, { checkAgainst: checkLshAgainst }, { LshIndex }] = await Promise.all([
    import("../../methods/lsh-cosine/prepare.js"),
    import("../../slurm/slurm-run.js"),
    import("../method-options.js"),
    import("../../methods/sets/run-method.js"),
    import("../../util/output-dir.js"),
    import("../../workdir/index-store.js"),
    import("../../methods/lsh-cosine/against.js"),
    import("../../methods/lsh-cosine/index.js"),
  ]);
  const against = (given.against ?? []).map((dir) => resolve(dir));
  const a = withMethodDefaults({ ...given, keep: keepPolicy(given.keep, against) });
  const inputs = inputPaths(a.inputs);
  if (inputs.includes("-")) throw new VertdupError("slurm run cannot read standard input: give the corpus as files on the shared filesystem");
  const workdir = resolve(a.w);
  const outdir = resolve(a.o);
  const exec = { workers: a["cpus-per-task"], chunkBytes: a["chunk-size"], maxDocBytes: maxDocBytesFrom(a), oversize: a.oversize };
  const scriptOptions = scriptOptionsFrom(a, workdir, slurmDir);
  const common = { outdir, tasks: a.tasks };
  const resolved = inputs.map((i) => resolve(i));
  // lsh-cosine against indices: one job runs `vertdup run --against [--update]` as a unit (slurm/lsh-against-phases.ts).
  const supplement =
    a.method === "lsh-cosine" && against.length > 0
      ? { inputs: resolved, prepare: prepareOptionsFrom(a), pleb: plebOptionsFrom({ ...a, threshold: given.threshold }, a.bits), keep: a.keep, pairsLimit: pairsOutputFrom(a).limit, report: true, against, againstScan: a["against-scan"], update: a.update }
      : undefined;
  // A work directory given to `run -w` is left as an index of the inputs: so is this one (not with --against, as with run).
  const methodSettings =
    supplement !== undefined
      ? { method: "lsh-cosine" as const, supplement, exec: { ...exec, iterationsPerGroup: a["iterations-per-group"] } }
      : a.method === "lsh-cosine"
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
  // Said before any work; the job that reads the indices reads them again under their locks.
  if (supplement !== undefined) {
    checkAgainstUse(against, { update: a.update, workdir });
    checkLshAgainst({ against, recall: a["estimate-recall"] }, supplement.prepare);
    for (const dir of against) await LshIndex.open(dir, supplement.prepare, 0);
  } else if (methodSettings.method !== "lsh-cosine") {
    await checkAgainst(methodSettings.run, workdir);
    await readIndices(methodSettings.run);
  } else if (a.update) checkAgainstUse(against, { update: true, workdir });
  await submitPhases(workdir, settings, scriptOptions, a["dry-run"], async () => {
    await ensureWritableDir(outdir);
    // The supplement job starts over when it runs (run --against does not resume): nothing to set up.
    if (supplement !== undefined) return;
    // Re-submitting into the same work directory resumes: finished tasks are skipped.
    if (methodSettings.method === "lsh-cosine") await startPrepare(resolved, workdir, prepareOptionsFrom(a), exec, true);
    else await startFeatures(workdir, await featuresConfig(resolved, methodSettings.method, methodSettings.run.features, exec), true);
  });
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

/**
 * Submits the phases of `settings` into `workdir`: the batch scripts rendered (once before any
 * work, so that a value no script can carry stops the submission before the work directory is
 * made), the work directory's lock taken for the jobs, `prepare` run under it (configuration,
 * folders), the scripts written and, unless `dryRun`, submitted as a chain.
 */
async function submitPhases(workdir: string, settings: (token: string) => SubmissionSettings, scriptOptions: ScriptOptions, dryRun: boolean, prepare: () => Promise<void>): Promise<void> {
  const [{ takeWorkdir }, { renderBatchScript }, { activeJobs, maxArraySize }, { phaseJobs, splitArrays, submitChain, writeBatchScripts }, { readSubmittedJobs, writeSlurmSettings, writeSubmittedJobs }, { slurmPhases }] = await Promise.all([
    import("../../workdir/use.js"),
    import("../../slurm/batch-script.js"),
    import("../../slurm/sbatch.js"),
    import("../../slurm/submit.js"),
    import("../../slurm/slurm-run.js"),
    import("../../slurm/phases.js"),
  ]);
  const maxArray = await maxArraySize();
  const render = (token: string) => {
    const stages = splitArrays(phaseJobs(workdir, slurmPhases(workdir, settings(token)), token), maxArray);
    const jobs = stages.flat();
    return { stages, jobs, texts: jobs.map((job) => renderBatchScript(job, scriptOptions)) };
  };
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
  await prepare();
  await writeSlurmSettings(workdir, settings(lock.token));
  const scripts = await writeBatchScripts(workdir, jobs, texts);
  if (dryRun) {
    process.stdout.write(`batch scripts written (not submitted):\n${scripts.join("\n")}\n`);
    return;
  }
  const ids = await submitChain(stages, scripts);
  await writeSubmittedJobs(workdir, ids);
  process.stdout.write(`submitted: ${jobs.map((j) => `${j.name} ${ids[j.name]}`).join(", ")}\nfollow with: vertdup slurm status -w ${workdir}\n`);
}

const paragraphsBuilder = (y: Argv) =>
  withOptions(y.positional("inputs", { type: "string", array: true, demandOption: true, describe: "corpus files on the shared filesystem" }), [...PARAGRAPH_OPTIONS, ...SLURM_OPTIONS], {
    ...PARAGRAPH_OPTION_VARIANTS,
    output: { describe: "output corpus on the shared filesystem (.vert, .gz, .zst)", check: noStdio },
    workdir: { describe: "work directory on a filesystem all nodes share (left as an index of the inputs' n-grams)" },
    tasks: { describe: "array tasks of the n-gram phase (at most 10000)" },
  });

type ParagraphsArgs = Awaited<ReturnType<typeof paragraphsBuilder>["argv"]>;

/** `slurm paragraphs`: the n-gram pass as a job array, then one job of the repeats and output passes. */
async function submitParagraphs(a: ParagraphsArgs): Promise<void> {
  const inputs = inputPaths(a.inputs);
  if (inputs.includes("-")) throw new VertdupError("slurm paragraphs cannot read standard input: give the corpus as files on the shared filesystem");
  const [{ checkRun, clearParagraphSteps, runConfig }, { openIndices }, { checkAgainstUse }, { adoptRunConfig, CONFIG_FILE, readRunConfig }, { slurmDir }, { STEP_FOLDER }, { checkedDigests }] = await Promise.all([
    import("../../paragraph-dedup/run-paragraphs.js"),
    import("../../paragraph-dedup/ngram-index.js"),
    import("../../workdir/index-store.js"),
    import("../../workdir/run-config.js"),
    import("../../slurm/slurm-run.js"),
    import("../../paragraph-dedup/step-files.js"),
    import("../../workdir/batch-digest.js"),
  ]);
  const workdir = resolve(a.w);
  const resolved = inputs.map((i) => resolve(i));
  const output = resolve(a.o);
  const reportPath = a.report === undefined ? defaultReportPath(output) : resolve(a.report);
  const against = (a.against ?? []).map((dir) => resolve(dir));
  const options = paragraphOptionsFrom(a);
  const exec = { workers: a["cpus-per-task"], chunkBytes: a["chunk-size"], maxDocBytes: maxDocBytesFrom(a), oversize: a.oversize };
  const run = { workdir, reportPath, against, memory: parseSize(a.memory, "memory") };
  // Said before any work; the output job reads the indices again under their locks.
  await checkRun(resolved, output, run);
  checkAgainstUse(against, { update: a.update, workdir });
  const indices = against.length === 0 ? [] : await openIndices(against, options);
  // An input the index holds already is refused now, not after the n-gram array (the output job checks again, under the index's lock).
  if (a.update) await checkedDigests(indices, resolved, true, () => undefined);
  const settings = (token: string): SubmissionSettings => ({ command: "paragraphs", output, reportPath, memory: run.memory, against, update: a.update, tasks: a.tasks, token });
  await submitPhases(workdir, settings, scriptOptionsFrom(a, workdir, slurmDir), a["dry-run"], async () => {
    if (existsSync(join(workdir, CONFIG_FILE)) && ((await readRunConfig(workdir)).prepare as { command?: string }).command !== "paragraphs") {
      throw new VertdupError(`${workdir}: made by another command than vertdup paragraphs: give another work directory`);
    }
    const config = await runConfig(run, resolved, output, options, exec, indices);
    // Re-submitting the same job resumes: the chunks whose n-grams are saved are not read again.
    if (!(await adoptRunConfig(workdir, config as RunConfig<object>, true))) await clearParagraphSteps(workdir);
    for (const folder of ["markers", STEP_FOLDER]) await mkdir(join(workdir, folder), { recursive: true });
  });
}

const statusBuilder = (y: Argv) => withOptions(y, ["workdir"], { workdir: { describe: "work directory of the submitted run" } });

async function showStatus(workdir: string): Promise<void> {
  const { runStatus } = await import("../../slurm/status.js");
  const s = await runStatus(workdir);
  const lines = [`${s.kind.key.padEnd(10)} ${s.kind.value}`, ...s.phases.map((p) => `${p.phase.padEnd(10)} ${p.done}/${p.total ?? "?"}${p.total !== undefined && p.done >= p.total ? " done" : ""}`)];
  lines.push(s.active.length > 0 ? `jobs still queued or running: ${s.active.join(", ")}` : "no job of this run is queued or running");
  process.stdout.write(lines.join("\n") + "\n");
}

/** `vertdup slurm run|paragraphs|status`: the pipeline (or the paragraph job) as Slurm job arrays with dependencies. */
export const slurmCommand = {
  command: "slurm <action>",
  describe: "run on a Slurm cluster: job arrays with dependencies on a shared filesystem",
  builder: (y: Argv) =>
    y
      .command("run <inputs..>", "write the batch scripts and submit them (re-submitting resumes)", runBuilder, submitRun)
      .command("paragraphs <inputs..>", "submit vertdup paragraphs as jobs: the n-gram pass as an array, then the repeats and output passes (re-submitting resumes)", paragraphsBuilder, submitParagraphs)
      .command("status", "progress of a submitted run, from its markers", statusBuilder, (a) => showStatus(a.w))
      .demandCommand(1),
  handler: () => undefined,
};
