import type { Argv } from "yargs";
import { executionOptionsFrom, pairsOutputFrom, plebOptionsFrom, withOptions } from "../cli-options.js";
import { plebPhase } from "../coordinator/pleb-phase.js";
import { readPrepareManifest } from "../coordinator/prepare-manifest.js";
import { takeWorkdir } from "../coordinator/workdir-use.js";
import { stderrReporter } from "../coordinator/progress.js";
import { runSummary } from "./summary.js";

const builder = (y: Argv) =>
  withOptions(
    y,
    ["workdir", "outdir", "resume", "pairs", "pairs-limit", "keep", "reference", "threshold", "beam", "shift-count", "iterations", "iterations-per-group", "verify", "cosine-threshold", "seed", "workers", "quiet"],
    {
      workdir: { describe: "prepared work directory" },
      threshold: { default: undefined, describe: "minimum relative Hamming similarity [from --cosine-threshold, 0.9 with --no-verify]" },
    },
  );

type Args = Awaited<ReturnType<typeof builder>["argv"]>;

export const plebCommand = {
  command: "pleb",
  describe: "PLEB half: signature store → similar pairs (re-run with other settings at will)",
  builder,
  handler: async (a: Args) => {
    const exec = executionOptionsFrom(a);
    const output = { keep: a.keep, pairsLimit: pairsOutputFrom(a).limit, reference: a.reference, resume: a.resume };
    const lock = await takeWorkdir(a.w, { create: false });
    const manifest = await readPrepareManifest(a.w)
      .then((prepared) => plebPhase(a.w, a.o, plebOptionsFrom(a, prepared.options.bits), exec, stderrReporter(exec.quiet), output))
      .finally(() => lock.release());
    process.stdout.write(runSummary(a.o, manifest) + "\n");
  },
};
