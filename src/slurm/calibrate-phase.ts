import { calibrateStep } from "../methods/lsh-cosine/calibrate-step.js";
import { outputStep } from "../methods/lsh-cosine/output-step.js";
import { firstGroupPairs, planVerifier, type PlebPlan } from "../pleb/pleb-step.js";
import type { PrepareManifest } from "../features/prepare-manifest.js";
import type { Reporter } from "../executor/progress.js";
import { recallSampler } from "../eval/sample-recall.js";
import type { SignatureStore } from "../runs/signature-store.js";
import type { LshCosineSettings, SlurmRunCommon } from "./slurm-run.js";

/**
 * The output job of a Slurm run: the outputs as `run` writes them. With `--estimate-recall`
 * also PLEB's sampled recall after each group (pleb-log.tsv, the manifest's recallEstimate),
 * drawn from the first group's pairs as `run`'s PLEB phase draws it (the groups ran as an
 * array, all of them), and report.html is left to the calibrate job that follows.
 */
export async function slurmOutput(workdir: string, settings: SlurmRunCommon & LshCosineSettings, prepared: PrepareManifest, store: SignatureStore, plan: PlebPlan, workers: number, reporter: Reporter): Promise<void> {
  const output = { keep: settings.keep, pairsLimit: settings.pairsLimit };
  if (settings.calibrate === undefined) {
    await outputStep(workdir, settings.outdir, prepared, store, plan, output);
    return;
  }
  const verifier = await planVerifier(workdir, store, plan);
  const recall = await recallSampler(store, prepared.counts.documents, plan.options, workers, reporter, verifier)(firstGroupPairs(plan));
  await outputStep(workdir, settings.outdir, prepared, store, plan, { ...output, recall, report: false }, verifier);
}

/** The calibrate job of a Slurm run with `--estimate-recall`: calibration.tsv as `run` makes it, then report.html. */
export async function slurmCalibrate(workdir: string, settings: SlurmRunCommon & Required<Pick<LshCosineSettings, "calibrate">>, workers: number): Promise<void> {
  const summary = await calibrateStep(workdir, settings.outdir, settings.calibrate, workers, { warn: (m) => process.stderr.write(`vertdup: warning: ${m}\n`) });
  process.stderr.write(`vertdup: ${summary}\n`);
}
