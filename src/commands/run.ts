import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Argv } from "yargs";
import { executionOptionsFrom, withReadingOptions, inputPaths, pairsOutputFrom, withPairsOptions, withResumeOption, plebOptionsFrom, prepareOptionsFrom, withExecutionOptions, withPlebOptions, withPrepareOptions } from "../cli-options.js";
import { prepare } from "../coordinator/prepare.js";
import { plebPhase } from "../coordinator/pleb-phase.js";
import { stderrReporter } from "../coordinator/progress.js";
import { methodDefaults, methodRunFrom, withMethodOptions } from "../methods/method-cli.js";
import { runMethod } from "../methods/run-method.js";
import { ensureWritableDir } from "../util/output-dir.js";
import { VertdupError } from "../util/errors.js";
import { methodSummary, runSummary } from "./summary.js";

const builder = (y: Argv) =>
  withReadingOptions(withPairsOptions(withResumeOption(withMethodOptions(withExecutionOptions(withPlebOptions(withPrepareOptions(y)))))))
    .positional("inputs", { type: "string", array: true, demandOption: true, describe: ".vert, .vert.gz, .vert.zst or - (stdin)" })
    .option("o", { alias: "outdir", type: "string", demandOption: true, describe: "output directory" })
    .option("w", { alias: "workdir", type: "string", describe: "work directory to keep (default: temporary, removed)" });

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
    await ensureWritableDir(a.o);
    const reporter = stderrReporter(exec.quiet);
    const workdir = a.w ?? (await mkdtemp(join(exec.tmpDir ?? tmpdir(), "vertdup-")));
    try {
      if (a.method === "lsh-cosine") {
        await prepare(inputPaths(a.inputs), workdir, prepareOptionsFrom(opts), exec, reporter, a.resume);
        const output = { keep: a.keep, pairsLimit: pairsOutputFrom(a).limit, resume: a.resume };
        const manifest = await plebPhase(workdir, a.o, plebOptionsFrom(opts), exec, reporter, output);
        process.stdout.write(runSummary(a.o, manifest) + "\n");
      } else {
        const manifest = await runMethod(inputPaths(a.inputs), workdir, a.o, methodRunFrom(opts), exec, reporter);
        process.stdout.write(methodSummary(a.o, manifest) + "\n");
      }
    } finally {
      if (a.w === undefined) await rm(workdir, { recursive: true, force: true });
    }
  },
};
