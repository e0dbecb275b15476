import type { Argv } from "yargs";
import { executionOptionsFrom, withPairsOptions, withResumeOption, plebOptionsFrom, withExecutionOptions, withPlebOptions } from "../cli-options.js";
import { plebPhase } from "../coordinator/pleb-phase.js";
import { takeWorkdir } from "../coordinator/workdir-use.js";
import { stderrReporter } from "../coordinator/progress.js";
import { runSummary } from "./summary.js";
import { KEEP_OPTION } from "../methods/method-cli.js";

const builder = (y: Argv) =>
  withPairsOptions(withResumeOption(withExecutionOptions(withPlebOptions(y))))
    .option("w", { alias: "workdir", type: "string", demandOption: true, describe: "prepared work directory" })
    .option("o", { alias: "outdir", type: "string", demandOption: true, describe: "output directory" })
    .option(...KEEP_OPTION)
    .option("reference", { type: "string", describe: "pairs file (e.g. from hamming-full): log the running recall against it" });

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const plebCommand = {
  command: "pleb",
  describe: "PLEB half: signature store → similar pairs (re-run with other settings at will)",
  builder,
  handler: async (a: Args) => {
    const exec = executionOptionsFrom(a);
    const lock = await takeWorkdir(a.w, { create: false });
    const manifest = await plebPhase(a.w, a.o, plebOptionsFrom(a), exec, stderrReporter(exec.quiet), { keep: a.keep, reference: a.reference, resume: a.resume }).finally(() => lock.release());
    process.stdout.write(runSummary(a.o, manifest) + "\n");
  },
};
