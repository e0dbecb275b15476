import { join } from "node:path";
import type { Argv } from "yargs";
import type { RunManifest } from "../../methods/manifest.js";
import { HTML_REPORT_OPTION, executionOptionsFrom, pairsOutputFrom, plebOptionsFrom, sampleGrowthFrom, withOptions } from "../options.js";
import { DEFAULT_TARGET_RECALL } from "../../core/options.js";
import { readManifest, runSummary } from "../../methods/manifest.js";
import { RUN_OUTPUTS } from "./run.js";

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
  builder: (y: Argv) => builder(y).example("vertdup pleb -w work -o out-beam80 --beam 80", "PLEB again on a prepared work directory, other settings"),
  handler: async (a: Args) => {
    // Loaded here, not at start: the CLI loads only the modules of the command it runs.
    const [{ checkPlebShifts, lshCosinePipeline, PLEB_STEPS }, { runLocally }, { readPrepareManifest }, { takeWorkdir, lockOutdir }, { checkOutputs }] = await Promise.all([
      import("../../methods/lsh-cosine/pipeline.js"),
      import("../../executor/pipeline.js"),
      import("../../features/prepare-manifest.js"),
      import("../../workdir/use.js"),
      import("../../util/output-dir.js"),
    ]);
    // A --reference read from the output directory is an input, which the new outputs must not replace.
    await checkOutputs(RUN_OUTPUTS.map((f) => join(a.o, f)), a.reference === undefined ? [] : [a.reference]);
    const { workers, quiet, tmpDir: _tmpDir, ...exec } = executionOptionsFrom(a);
    const lock = await takeWorkdir(a.w, { create: false });
    let outLock = null;
    try {
      const prepared = await readPrepareManifest(a.w);
      const calibrate = a["estimate-recall"] ? { targetRecall: a["target-recall"] ?? DEFAULT_TARGET_RECALL, sampling: a.sampling, ...sampleGrowthFrom(a) } : undefined;
      // The PLEB steps of lsh-cosine's pipeline, on the signatures `prepare` left.
      const settings = { method: "lsh-cosine" as const, inputs: prepared.inputs, outdir: a.o, prepare: prepared.options, pleb: plebOptionsFrom(a, prepared.options.bits), keep: a.keep, pairsLimit: pairsOutputFrom(a).limit, reference: a.reference, report: a.report !== false, resume: a.resume, against: [], againstScan: "new" as const, update: false, saveIndex: false, calibrate, tasks: 1, exec };
      // Taken once the options are checked: a refused command leaves no -o behind.
      checkPlebShifts(a.w, prepared.options.bits, settings.pleb.shiftCount);
      outLock = await lockOutdir(a.o, a.w);
      await runLocally(lshCosinePipeline(a.w, settings, PLEB_STEPS), workers, quiet === true);
      const manifest = await readManifest<RunManifest>(a.o);
      process.stdout.write(runSummary(a.o, manifest) + "\n");
    } finally {
      await outLock?.release();
      await lock.release();
    }
  },
};
