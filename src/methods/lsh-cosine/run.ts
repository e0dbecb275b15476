import type { KeepPolicy } from "../../core/method-options.js";
import type { ExecutionOptions, PlebOptions, PrepareOptions } from "../../core/options.js";
import type { RunManifest } from "../manifest.js";
import type { AgainstScan } from "./against.js";
import type { CalibrationRequest } from "./calibrate-step.js";
import type { Reporter } from "../../executor/progress.js";

/** What `vertdup run` does with lsh-cosine in a work directory: the run's inputs, options and outputs. */
export interface LshCosineRun {
  inputs: readonly string[];
  workdir: string;
  outdir: string;
  prepare: PrepareOptions;
  pleb: PlebOptions;
  keep: KeepPolicy;
  pairsLimit: number;
  /** report.html (after calibration.tsv when calibrating). */
  report: boolean;
  resume: boolean;
  /** Saved indices (`--against`) whose documents come before the inputs'. */
  against: readonly string[];
  againstScan: AgainstScan;
  /** `--update`: append the inputs to the only `--against` index once the outputs are written. */
  update: boolean;
  /** Leave the work directory as an index of the inputs (a `-w` given, no `--against`). */
  saveIndex: boolean;
  /** `--estimate-recall`: calibrate after the outputs. */
  calibrate?: Omit<CalibrationRequest, "sample">;
}

/**
 * lsh-cosine from the inputs to the outputs in `run.workdir` (already claimed): prepare, PLEB
 * and outputs, then the calibration, then the index (a new one, or the batch appended with
 * `--update`). With `--against` the indices are locked from before they are first read until
 * the append is committed, so that no other update changes one meanwhile. `vertdup run` and
 * the `supplement` job of `vertdup slurm run --against` both run this, as a unit.
 */
export async function lshCosineRun(run: LshCosineRun, exec: ExecutionOptions, reporter: Reporter): Promise<RunManifest> {
  // Loaded here, not at start: the CLI loads only the modules of the command it runs.
  const [{ prepare }, { plebPhase }, { calibrateStep }, { batchTerms, SupplementedCorpus }, { saveRunIndex }, { checkedDigests }] = await Promise.all([
    import("./prepare.js"),
    import("./pleb-phase.js"),
    import("./calibrate-step.js"),
    import("./against.js"),
    import("./index.js"),
    import("../../workdir/batch-digest.js"),
  ]);
  const { workdir, calibrate } = run;
  const warn = (m: string) => reporter.info(`warning: ${m}`);
  return withIndexLocks(run.against, async () => {
    const supplement = run.against.length === 0 ? undefined : await SupplementedCorpus.open(run.against, run.prepare, run.againstScan);
    const digests = supplement === undefined ? [] : await checkedDigests(supplement.indices, run.inputs, run.update, warn);
    const prepared = await prepare(run.inputs, workdir, run.prepare, exec, reporter, run.resume, supplement);
    // A calibrated run writes its report after calibration.tsv, so that the report shows it.
    const output = { keep: run.keep, pairsLimit: run.pairsLimit, resume: run.resume, report: run.report && calibrate === undefined, maxDocBytes: exec.maxDocBytes };
    // What becomes an index (or is appended to one) keeps its PLEB iterations' sorted keys.
    const saveKeys = supplement === undefined ? run.saveIndex : run.update;
    const manifest = await plebPhase(workdir, run.outdir, run.pleb, exec, reporter, output, supplement, saveKeys);
    if (calibrate !== undefined) {
      const then = run.report ? { maxDocBytes: exec.maxDocBytes, warn } : undefined;
      process.stderr.write(`vertdup: ${await calibrateStep(workdir, run.outdir, calibrate, exec.workers, then)}\n`);
    }
    if (supplement === undefined && run.saveIndex) await saveRunIndex(workdir, prepared);
    if (supplement !== undefined && run.update) await supplement.indices[0].append(workdir, prepared, supplement.weights(batchTerms(workdir)).newTerms, digests);
    return manifest;
  });
}

/** Runs `body` holding the locks of the indices (--against): no other run changes them while this one reads or appends. */
async function withIndexLocks<T>(dirs: readonly string[], body: () => Promise<T>): Promise<T> {
  if (dirs.length === 0) return body();
  const { lockWorkdirs } = await import("../../workdir/lock.js");
  const lock = await lockWorkdirs(dirs);
  try {
    return await body();
  } finally {
    await lock.release();
  }
}
