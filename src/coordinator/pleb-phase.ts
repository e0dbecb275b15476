import type { ExecutionOptions, PlebOptions } from "../options.js";
import { loadSignatureStore } from "../runs/signature-store.js";
import type { RunManifest } from "../output/manifest.js";
import type { PairVerifier } from "../pleb/pair-verifier.js";
import { ensureWritableDir } from "../util/output-dir.js";
import { WorkerPool } from "./pool.js";
import { readPrepareManifest } from "./prepare-manifest.js";
import type { Reporter } from "./progress.js";
import { checkReference, outputStep, type OutputOptions } from "./steps/output-step.js";
import { planVerifier, plebPhaseName, plebPlan, plebStep, resetPlan } from "./steps/pleb-step.js";
import { timed } from "./steps/timing.js";
import { WHOLE } from "./workdir.js";

/**
 * The PLEB half: signature store → iteration groups (each resumable) → pairs, clusters, log
 * and manifest in `outdir`. With `resume`, groups already done for the same options are
 * reused.
 */
export async function plebPhase(
  workdir: string,
  outdir: string,
  opts: PlebOptions,
  exec: ExecutionOptions,
  reporter: Reporter,
  output: OutputOptions & { resume: boolean },
): Promise<RunManifest> {
  const prepared = await readPrepareManifest(workdir);
  await ensureWritableDir(outdir);
  const store = loadSignatureStore(workdir, prepared.options.bits);
  const plan = plebPlan(workdir, opts, exec.iterationsPerGroup);
  checkReference(plan, output);
  if (!output.resume) await resetPlan(workdir, plan);
  const pool = new WorkerPool("pleb", exec.workers);
  // Loaded once for the iterations and the output's cosine column (part of PLEB's time).
  let verifier: PairVerifier | undefined;
  try {
    await timed(workdir, plebPhaseName(plan), WHOLE, async () => {
      verifier = await planVerifier(workdir, store, plan, pool);
      await plebStep(workdir, store, plan, WHOLE, exec, pool, reporter, verifier);
    });
  } finally {
    await pool.close();
  }
  return outputStep(workdir, outdir, prepared, store, plan, output, verifier);
}
