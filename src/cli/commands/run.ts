import { join } from "node:path";
import type { Argv } from "yargs";
import { HTML_REPORT_OPTION, METHOD_OPTIONS, METHOD_OPTION_VARIANTS, executionOptionsFrom, inputPaths, withOptions } from "../options.js";
import { DEFAULT_TARGET_RECALL, type ExecutionOptions } from "../../core/options.js";
import { VertdupError } from "../../core/errors.js";
import { repeatedIdsWarning } from "../../corpus/run-warnings.js";
import { checkAgainstUse } from "../../workdir/index-store.js";
import { CALIBRATION_FILE } from "../../eval/calibration.js";
import { CALIBRATED_METHODS, METHODS, refuseUncalibrated, type RunRequest } from "../../methods/method.js";
import type { RunResult } from "../../methods/registry.js";

/** The options of every method; those a --method does not use are refused (cli/options.ts). */
const RUN_OPTIONS = [...METHOD_OPTIONS, "outdir", "workdir", "tmp-dir", "resume", "estimate-recall", "sample", "sampling", "max-width", "max-sample", "target-recall", "workers", "quiet", "against", "update", "against-scan"] as const;

const builder = (y: Argv) =>
  withOptions(y.positional("inputs", { type: "string", array: true, demandOption: true, describe: ".vert, .vert.gz, .vert.zst or - (stdin)" }).option("report", HTML_REPORT_OPTION), RUN_OPTIONS, {
    ...METHOD_OPTION_VARIANTS,
    workdir: { demandOption: false, describe: "work directory to keep (default: temporary, removed)" },
  });

/** The files a run may write into its output directory. */
export const RUN_OUTPUTS = ["pairs.tsv", "clusters.tsv", "groups.tsv", "manifest.json", "pleb-log.tsv", CALIBRATION_FILE, "report.html"];

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

/**
 * `vertdup run` from its parsed options (the CLI's handler and the library's runPipeline),
 * calibrated afterwards when `calibrateTo` names a target recall: the method's pipeline from
 * the registry, run locally.
 */
export async function runFromOptions(a: Args, calibrateTo = calibrationTarget(a)): Promise<RunResult> {
  // Loaded here, not at start: the CLI loads only the modules of the command it runs.
  const [{ useWorkdir, lockOutdir }, { runLocally }, { runRequestFrom }, { checkMethodJob, finishedRun, methodJob, pipelineOf }, { checkOutputs }, { checkReadable, smallInputs }] = await Promise.all([
    import("../../workdir/use.js"),
    import("../../executor/pipeline.js"),
    import("../method-options.js"),
    import("../../methods/registry.js"),
    import("../../util/output-dir.js"),
    import("../../corpus/open-input.js"),
  ]);
  const against = a.against ?? [];
  checkAgainstUse(against, { update: a.update, resume: a.resume, workdir: a.w });
  const exec = executionOptionsFrom(a);
  if (a.resume && a.w === undefined) throw new VertdupError("--resume needs the work directory of the interrupted run (-w)");
  // Only PLEB stops at a target recall; another method only recommends for one.
  if (METHODS[a.method].searchStopsAtRecall === undefined && a["target-recall"] !== undefined && !a["estimate-recall"]) throw new VertdupError(`--target-recall on --method ${a.method} needs --estimate-recall (it chooses what to recommend)`);
  await checkOutputs(RUN_OUTPUTS.map((f) => join(a.o, f)), inputPaths(a.inputs));
  // Before -w and -o are made: a missing input leaves neither behind.
  for (const input of inputPaths(a.inputs)) await checkReadable(input);
  const request: RunRequest = runRequestFrom(a, { inputs: inputPaths(a.inputs), outdir: a.o, against, report: a.report !== false, resume: a.resume, saveIndex: a.w !== undefined, calibrateTo, tasks: 1, exec: stepOptions(exec) });
  const job = methodJob(request);
  await checkMethodJob(job);
  return useWorkdir(a.w, exec.tmpDir, async (workdir) => {
    const lock = await lockOutdir(a.o, workdir);
    try {
      // Without --workers, small inputs run in this thread: no pool whose start-up costs more than it saves.
      const inProcess = a.workers === undefined && (await smallInputs(inputPaths(a.inputs)));
      await runLocally(pipelineOf(workdir, job), exec.workers, exec.quiet === true, inProcess);
      const result = await finishedRun(job);
      const repeated = repeatedIdsWarning(result.manifest.warnings, a["id-attr"]);
      if (repeated !== undefined) process.stderr.write(`vertdup: ${repeated}\n`);
      return result;
    } finally {
      await lock?.release();
    }
  });
}

export const runCommand = {
  command: "run <inputs..>",
  describe: "whole pipeline: corpus → pairs (--method) → clusters",
  builder: (y: Argv) => builder(y).example("vertdup run data-samples/sample.vert.gz -o out", "deduplicate a corpus (lsh-cosine) \u2192 out/pairs.tsv, clusters.tsv, report.html").example("vertdup run corpus.vert.gz -o out --method minhash --threshold 0.8", "Jaccard of word 5-shingles \u2265 0.8 instead"),
  handler: async (a: Args) => {
    process.stdout.write((await runFromOptions(a)).summary + "\n" + nextSteps(a));
  },
};

/** The summary's closing lines: where report.html is and the command that writes the cleaned corpus. */
function nextSteps(a: Args): string {
  const quote = (s: string) => (/^[\w./:@%+=,-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);
  const inputs = a.inputs.includes("-") ? "<corpus>" : a.inputs.map(quote).join(" ");
  const report = a.report !== false ? `report: ${join(a.o, "report.html")} (open it in a browser)\n` : "";
  return `${report}next: vertdup clean ${inputs} --from ${quote(a.o)} -o cleaned.vert\n`;
}

/** The recall `run --estimate-recall` calibrates against: --target-recall, or its default. */
function calibrationTarget(a: Args): number | undefined {
  return a["estimate-recall"] ? (a["target-recall"] ?? DEFAULT_TARGET_RECALL) : undefined;
}

/**
 * `calibrate` is `run --estimate-recall` whose `--target-recall` (default 0.99) only chooses
 * what to recommend: PLEB runs all its iterations, so that the recommendation sees them all.
 */
export const calibrateCommand = {
  command: "calibrate <inputs..>",
  describe: `run (${CALIBRATED_METHODS.join(", ")}), then recall and precision on a document sample against the exact similarity → calibration.tsv`,
  builder: (y: Argv) => builder(y).example("vertdup calibrate data-samples/sample.vert.gz -o out-cal", "recall and precision of lsh-cosine against exact cosine \u2192 out-cal/calibration.tsv").example("vertdup calibrate data-samples/sample.vert.gz -o out-cal --method minhash --sample 200", "the same for minhash, 200 sampled documents").option("target-recall", { default: DEFAULT_TARGET_RECALL, describe: "recall to recommend a threshold and PLEB's iterations (minhash: bands × rows) for" }),
  handler: async (a: Args) => {
    refuseUncalibrated(a.method);
    const result = await runFromOptions({ ...a, "estimate-recall": true, "target-recall": undefined }, a["target-recall"] ?? DEFAULT_TARGET_RECALL);
    process.stdout.write(result.summary + "\n");
  },
};

/** What the steps take of the execution options (the cores and the terminal are the executor's). */
function stepOptions({ workers: _workers, quiet: _quiet, tmpDir: _tmpDir, ...rest }: ExecutionOptions): RunRequest["exec"] {
  return rest;
}
