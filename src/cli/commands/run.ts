import type { SetMethod } from "../../methods/sets/set-method.js";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Argv } from "yargs";
import { HTML_REPORT_OPTION, METHOD_OPTIONS, METHOD_OPTION_VARIANTS, executionOptionsFrom, inputPaths, pairsOutputFrom, plebOptionsFrom, prepareOptionsFrom, sampleGrowthFrom, withOptions } from "../options.js";
import { DEFAULT_TARGET_RECALL, type ExecutionOptions } from "../../core/options.js";
import type { LshCosineSettings } from "../../methods/lsh-cosine/pipeline.js";
import { VertdupError } from "../../core/errors.js";
import { checkAgainstUse } from "../../workdir/index-store.js";
import { methodSummary, runSummary } from "./summary.js";
import type { MethodManifest, RunManifest } from "../../methods/manifest.js";

import { CALIBRATION_FILE, refuseUncalibrated } from "../../eval/calibration.js";

/** The options of every method; those a --method does not use are refused (cli/options.ts). */
const RUN_OPTIONS = [...METHOD_OPTIONS, "outdir", "workdir", "tmp-dir", "resume", "estimate-recall", "sample", "sampling", "max-width", "max-sample", "target-recall", "workers", "quiet", "against", "update", "against-scan"] as const;

const builder = (y: Argv) =>
  withOptions(y.positional("inputs", { type: "string", array: true, demandOption: true, describe: ".vert, .vert.gz, .vert.zst or - (stdin)" }).option("report", HTML_REPORT_OPTION), RUN_OPTIONS, {
    ...METHOD_OPTION_VARIANTS,
    workdir: { demandOption: false, describe: "work directory to keep (default: temporary, removed)" },
  });

/** The files a run writes in its output directory. */
const RUN_OUTPUTS = ["pairs.tsv", "clusters.tsv", "groups.tsv", "manifest.json", "pleb-log.tsv", CALIBRATION_FILE, "report.html"];

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

/** What a run made: its summary line and manifest.json. */
export type RunResult = { summary: string } & ({ method: "lsh-cosine"; manifest: RunManifest } | { method: SetMethod; manifest: MethodManifest });

/**
 * `vertdup run` from its parsed options (the CLI's handler and the library's runPipeline),
 * calibrated afterwards (calibrateStep) when `calibrateTo` names a target recall.
 */
export async function runFromOptions(given: Args, calibrateTo = calibrationTarget(given)): Promise<RunResult> {
  // Loaded here, not at start: the CLI loads only the modules of the command it runs.
  const [{ useWorkdir }, { lshCosinePipeline }, { runLocally }, { keepPolicy, methodRunFrom, withMethodDefaults }, { setMethodPipeline }, { isSetMethod }, { ensureWritableDir, refuseOverwritingInputs }, { checkAgainst }] = await Promise.all([
    import("../../workdir/use.js"),
    import("../../methods/lsh-cosine/pipeline.js"),
    import("../../executor/pipeline.js"),
    import("../method-options.js"),
    import("../../methods/sets/pipeline.js"),
    import("../../methods/sets/set-methods.js"),
    import("../../util/output-dir.js"),
    import("../../methods/lsh-cosine/against.js"),
  ]);
  const against = given.against ?? [];
  const a = { ...given, keep: keepPolicy(given.keep, against) };
  checkAgainstUse(against, { update: a.update, resume: a.resume, workdir: a.w });
  const exec = executionOptionsFrom(a);
  const opts = withMethodDefaults(a);
  if (a.resume && a.w === undefined) throw new VertdupError("--resume needs the work directory of the interrupted run (-w)");
  // Only PLEB stops at a target recall; another method only recommends for one.
  if (isSetMethod(a.method) && a["target-recall"] !== undefined && !a["estimate-recall"]) throw new VertdupError(`--target-recall on --method ${a.method} needs --estimate-recall (it chooses what to recommend)`);
  await refuseOverwritingInputs(RUN_OUTPUTS.map((f) => join(a.o, f)), inputPaths(a.inputs));
  if (a.method === "lsh-cosine") checkAgainst({ against, recall: a["estimate-recall"] || a["target-recall"] !== undefined }, prepareOptionsFrom(opts));
  return useWorkdir(a.w, exec.tmpDir, async (workdir): Promise<RunResult> => {
    await ensureWritableDir(a.o);
    if (a.method === "lsh-cosine") {
      const calibrate = calibrateTo === undefined ? undefined : { targetRecall: calibrateTo, sampling: a.sampling, ...sampleGrowthFrom(a) };
      const settings = { method: a.method, inputs: inputPaths(a.inputs), outdir: a.o, prepare: prepareOptionsFrom(opts), pleb: plebOptionsFrom({ ...opts, threshold: a.threshold }, a.bits), keep: a.keep, pairsLimit: pairsOutputFrom(a).limit, report: a.report !== false, resume: a.resume, against: [...against], againstScan: a["against-scan"], update: a.update, saveIndex: a.w !== undefined, calibrate, tasks: 1, exec: stepOptions(exec) };
      await runLocally(lshCosinePipeline(workdir, settings), exec.workers, exec.quiet === true);
      const manifest = JSON.parse(await readFile(join(a.o, "manifest.json"), "utf8")) as RunManifest;
      return { method: a.method, manifest, summary: runSummary(a.o, manifest) };
    }
    const calibrate = calibrateTo === undefined ? undefined : { sample: a.sample, targetRecall: calibrateTo, sampling: a.sampling, ...sampleGrowthFrom(a) };
    const run = { ...methodRunFrom(opts), report: a.report, calibrate, resume: a.resume, against, update: a.update, saveIndex: a.w !== undefined };
    await runLocally(setMethodPipeline(workdir, { method: a.method, inputs: inputPaths(a.inputs), outdir: a.o, run, exec: stepOptions(exec), tasks: 1 }), exec.workers, exec.quiet === true);
    const manifest = JSON.parse(await readFile(join(a.o, "manifest.json"), "utf8")) as MethodManifest;
    return { method: a.method, manifest, summary: methodSummary(a.o, manifest) };
  });
}

export const runCommand = {
  command: "run <inputs..>",
  describe: "whole pipeline: corpus → pairs (--method) → clusters",
  builder,
  handler: async (a: Args) => {
    process.stdout.write((await runFromOptions(a)).summary + "\n");
  },
};

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
  describe: "run (lsh-cosine, minhash, paragraphs), then recall and precision on a document sample against the exact similarity → calibration.tsv",
  builder: (y: Argv) => builder(y).option("target-recall", { default: DEFAULT_TARGET_RECALL, describe: "recall to recommend a threshold and PLEB's iterations (minhash: bands × rows) for" }),
  handler: async (a: Args) => {
    refuseUncalibrated(a.method);
    const result = await runFromOptions({ ...a, "estimate-recall": true, "target-recall": undefined }, a["target-recall"] ?? DEFAULT_TARGET_RECALL);
    process.stdout.write(result.summary + "\n");
  },
};

/** What the steps take of the execution options (the cores and the terminal are the executor's). */
function stepOptions({ workers: _workers, quiet: _quiet, tmpDir: _tmpDir, ...rest }: ExecutionOptions): LshCosineSettings["exec"] {
  return rest;
}
