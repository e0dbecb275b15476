import { join } from "node:path";
import type { Argv } from "yargs";
import { executionOptionsFrom, inputPaths, pairsOutputFrom, plebOptionsFrom, prepareOptionsFrom, withOptions } from "../cli-options.js";
import { prepare } from "../coordinator/prepare.js";
import { useWorkdir } from "../coordinator/workdir-use.js";
import { plebPhase } from "../coordinator/pleb-phase.js";
import { stderrReporter } from "../coordinator/progress.js";
import { methodDefaults, methodRunFrom } from "../methods/method-cli.js";
import { runMethod } from "../methods/run-method.js";
import { ensureWritableDir, refuseOverwritingInputs } from "../util/output-dir.js";
import { VertdupError } from "../util/errors.js";
import { methodSummary, runSummary } from "./summary.js";

/** The options of every method; those a --method does not use are refused (cli-options.ts). */
const RUN_OPTIONS = [
  "outdir", "workdir", "tmp-dir", "resume", "method", "pairs", "pairs-limit", "keep",
  "column", "id-attr", "lowercase", "keep-numbers", "shingle-size", "bits", "weighting", "min-df", "max-df", "seed", "projection",
  "threshold", "beam", "shift-count", "iterations", "iterations-per-group",
  "num-perm", "bands", "rows", "memory", "max-distance", "short-tokens",
  "workers", "chunk-size", "max-doc-bytes", "quiet",
] as const;

const builder = (y: Argv) =>
  withOptions(y.positional("inputs", { type: "string", array: true, demandOption: true, describe: ".vert, .vert.gz, .vert.zst or - (stdin)" }), RUN_OPTIONS, {
    workdir: { demandOption: false, describe: "work directory to keep (default: temporary, removed)" },
    // Their defaults depend on the method (methodDefaults).
    threshold: { default: undefined, describe: "minimum similarity [lsh-cosine 0.9, minhash 0.8, paragraphs 0.8]" },
    "shingle-size": { default: undefined, describe: "consecutive kept words per term/shingle [lsh-cosine 1, minhash 5]" },
  });

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
        const output = { keep: a.keep, pairsLimit: pairsOutputFrom(a).limit, resume: a.resume };
        const manifest = await plebPhase(workdir, a.o, plebOptionsFrom(opts), exec, reporter, output);
        process.stdout.write(runSummary(a.o, manifest) + "\n");
      } else {
        const manifest = await runMethod(inputPaths(a.inputs), workdir, a.o, methodRunFrom(opts), exec, reporter);
        process.stdout.write(methodSummary(a.o, manifest) + "\n");
      }
    });
  },
};
