import { SHIFTS_PER_BIT, type ExecutionOptions, type PlebOptions } from "../../core/options.js";
import { VertdupError } from "../../core/errors.js";
import { loadSignatureStore } from "../../runs/signature-store.js";
import type { RunManifest } from "../manifest.js";
import type { PairVerifier } from "../../pleb/pair-verifier.js";
import { ensureWritableDir } from "../../util/output-dir.js";
import { WorkerPool } from "../../executor/pool.js";
import { readPrepareManifest } from "../../features/prepare-manifest.js";
import type { Reporter } from "../../executor/progress.js";
import { checkReference, outputStep, type OutputOptions } from "./output-step.js";
import { planVerifier, plebPhaseName, plebPlan, plebStep, resetPlan } from "../../pleb/pleb-step.js";
import { timed } from "../../executor/timing.js";
import { WHOLE } from "../../workdir/layout.js";
import { recallSampler, type SampleRecall } from "../../eval/sample-recall.js";
import type { SupplementedCorpus } from "./against.js";
import { sortedKeysDir } from "../../pleb/stored-keys.js";

/**
 * The PLEB half: signature store → iteration groups (each resumable) → pairs, clusters, log
 * and manifest in `outdir`. With `resume`, groups already done for the same options are
 * reused. With `supplement` (--against) the store is the combined one and verification and
 * outputs cover the indices' documents too; its scan scope (`--against-scan`) decides what PLEB compares.
 * With `saveKeys` (a run whose work directory becomes an index, or --update), each iteration's
 * sorted keys are kept in the work directory (pleb/stored-keys.ts).
 */
export async function plebPhase(
  workdir: string,
  outdir: string,
  opts: PlebOptions,
  exec: ExecutionOptions,
  reporter: Reporter,
  output: OutputOptions & { resume: boolean },
  supplement?: SupplementedCorpus,
  saveKeys = false,
): Promise<RunManifest> {
  const prepared = await readPrepareManifest(workdir);
  // `pleb` learns the signature length only here (`run` checks it with the other options).
  const maxShifts = SHIFTS_PER_BIT * prepared.options.bits;
  if (opts.shiftCount > maxShifts) {
    throw new VertdupError(`--shift-count must be an integer from 0 to ${maxShifts} (${SHIFTS_PER_BIT} × the ${prepared.options.bits} bits of ${workdir}), got ${opts.shiftCount}`);
  }
  await ensureWritableDir(outdir);
  const store = loadSignatureStore(workdir, prepared.options.bits);
  const plan = plebPlan(workdir, opts, exec.iterationsPerGroup);
  checkReference(plan, output);
  if (!output.resume) await resetPlan(workdir, plan);
  const pool = new WorkerPool("pleb", exec.workers);
  // Loaded once for the iterations and the output's cosine column (part of PLEB's time).
  let verifier: PairVerifier | undefined;
  let recall: SampleRecall | undefined;
  const scope = supplement?.scanScope(store, supplement.firstOrdinal + prepared.counts.documents, opts, (m) => reporter.info(`warning: ${m}`));
  try {
    await timed(workdir, plebPhaseName(plan), WHOLE, async () => {
      const threshold = plan.options.cosineThreshold;
      verifier =
        supplement === undefined || threshold === undefined
          ? await planVerifier(workdir, store, plan, pool)
          : await supplement.verifier(workdir, prepared, store, threshold, pool, scope);
      const recallOf = opts.recallSample === undefined ? undefined : recallSampler(store, prepared.counts.documents, opts, exec.workers, reporter, verifier);
      recall = await plebStep(workdir, store, plan, WHOLE, exec, pool, reporter, recallOf, verifier, scope, saveKeys ? sortedKeysDir(workdir, opts.seed, opts.shiftCount) : undefined);
    });
  } finally {
    await pool.close();
  }
  return outputStep(workdir, outdir, prepared, store, plan, { ...output, recall }, verifier, supplement, scope);
}
