import type { Argv } from "yargs";
import { executionOptionsFrom, plebOptionsFrom, withExecutionOptions, withPlebOptions } from "../cli-options.js";
import { plebPhase } from "../coordinator/pleb-phase.js";
import { stderrReporter } from "../coordinator/progress.js";
import { runSummary } from "./summary.js";

const builder = (y: Argv) =>
  withExecutionOptions(withPlebOptions(y))
    .option("w", { alias: "workdir", type: "string", demandOption: true, describe: "prepared work directory" })
    .option("o", { alias: "outdir", type: "string", demandOption: true, describe: "output directory" });

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const plebCommand = {
  command: "pleb",
  describe: "PLEB half: signature store → similar pairs (re-run with other settings at will)",
  builder,
  handler: async (a: Args) => {
    const exec = executionOptionsFrom(a);
    const manifest = await plebPhase(a.w, a.o, plebOptionsFrom(a), exec, stderrReporter(exec.quiet));
    process.stdout.write(runSummary(a.o, manifest) + "\n");
  },
};
