import { join } from "node:path";
import type { Argv } from "yargs";
import { executionOptionsFrom, inputPaths, withPairsOptions, withResumeOption, plebOptionsFrom, prepareOptionsFrom, withExecutionOptions, withPlebOptions, withPrepareOptions } from "../cli-options.js";
import { prepare } from "../coordinator/prepare.js";
import { useWorkdir } from "../coordinator/workdir-use.js";
import { plebPhase } from "../coordinator/pleb-phase.js";
import { stderrReporter } from "../coordinator/progress.js";
import { methodDefaults, methodRunFrom, withMethodOptions } from "../methods/method-cli.js";
import { runMethod } from "../methods/run-method.js";
import { ensureWritableDir, refuseOverwritingInputs } from "../util/output-dir.js";
import { VertdupError } from "../util/errors.js";
import { methodSummary, runSummary } from "./summary.js";

const builder = (y: Argv) =>
  withPairsOptions(withResumeOption(withMethodOptions(withExecutionOptions(withPlebOptions(withPrepareOptions(y))))))
    .positional("inputs", { type: "string", array: true, demandOption: true, describe: ".vert, .vert.gz, .vert.zst or - (stdin)" })
    .option("o", { alias: "outdir", type: "string", demandOption: true, describe: "output directory" })
    .option("w", { alias: "workdir", type: "string", describe: "work directory to keep (default: temporary, removed)" });

/** The files a run writes in its output directory. */
const RUN_OUTPUTS = ["pairs.tsv", "clusters.tsv", "groups.tsv", "manifest.json", "pleb-log.tsv"];

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const runCommand = {
  command: "run <inputs..>",
  describe: "whole pipeline: corpus → pairs (--method) → clusters",
  builder,
  handler: async (a: Args) => {
    const exec = executionOptionsFrom(a);
    const parsed = { ...a, ...methodDefaults(a.method, a.threshold, a["shingle-size"]) };
    const opts = { ...parsed, "shingle-size": parsed.shingleSize };
    if (a.resume && a.w === undefined) throw new VertdupError("--resume needs the work directory of the interrupted run (-w)");
    await refuseOverwritingInputs(RUN_OUTPUTS.map((f) => join(a.o, f)), inputPaths(a.inputs));
    const reporter = stderrReporter(exec.quiet);
    await useWorkdir(a.w, exec.tmpDir, async (workdir) => {
      await ensureWritableDir(a.o);
      if (a.method === "lsh-cosine") {
        await prepare(inputPaths(a.inputs), workdir, prepareOptionsFrom(opts), exec, reporter, a.resume);
        const manifest = await plebPhase(workdir, a.o, plebOptionsFrom(opts), exec, reporter, { keep: a.keep, resume: a.resume });
        process.stdout.write(runSummary(a.o, manifest) + "\n");
      } else {
        const manifest = await runMethod(inputPaths(a.inputs), workdir, a.o, methodRunFrom(opts), exec, reporter);
        process.stdout.write(methodSummary(a.o, manifest) + "\n");
      }
    });
  },
};
