import type { Argv } from "yargs";
import { HTML_REPORT_OPTION, executionOptionsFrom, pairsOutputFrom, plebOptionsFrom, sampleGrowthFrom, withOptions } from "../options.js";
import { DEFAULT_TARGET_RECALL } from "../../core/options.js";
import { runSummary } from "./summary.js";

const builder = (y: Argv) =>
  withOptions(
    y.option("report", HTML_REPORT_OPTION),
    ["workdir", "outdir", "resume", "pairs", "pairs-limit", "keep", "reference", "threshold", "beam", "shift-count", "iterations", "iterations-per-group", "verify", "cosine-threshold", "estimate-recall", "sample", "sampling", "max-width", "max-sample", "target-recall", "seed", "workers", "quiet"],
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
    // Loaded here, not at start: the CLI loads only the modules of the command it runs.
    const [{ plebPhase }, { readPrepareManifest }, { takeWorkdir }, { stderrReporter }, { calibrateStep }] = await Promise.all([
      import("../../methods/lsh-cosine/pleb-phase.js"),
      import("../../features/prepare-manifest.js"),
      import("../../workdir/use.js"),
      import("../../executor/progress.js"),
      import("../../methods/lsh-cosine/calibrate-step.js"),
    ]);
    const exec = executionOptionsFrom(a);
    // A calibrated run writes its report after calibration.tsv, so that the report shows it.
    const output = { keep: a.keep, pairsLimit: pairsOutputFrom(a).limit, reference: a.reference, resume: a.resume, report: a.report !== false && !a["estimate-recall"] };
    const lock = await takeWorkdir(a.w, { create: false });
    try {
      const manifest = await plebPhase(a.w, a.o, plebOptionsFrom(a, (await readPrepareManifest(a.w)).options.bits), exec, stderrReporter(exec.quiet), output);
      if (a["estimate-recall"]) {
        const then = a.report === false ? undefined : { warn: (m: string) => process.stderr.write(`vertdup: warning: ${m}\n`) };
        process.stderr.write(`vertdup: ${await calibrateStep(a.w, a.o, { targetRecall: a["target-recall"] ?? DEFAULT_TARGET_RECALL, sampling: a.sampling, ...sampleGrowthFrom(a) }, exec.workers, then)}\n`);
      }
      process.stdout.write(runSummary(a.o, manifest) + "\n");
    } finally {
      await lock.release();
    }
  },
};
