import { availableParallelism } from "node:os";
import { dirname } from "node:path";
import { readPrepareManifest, type PrepareManifest } from "../features/prepare-manifest.js";
import { loadDocIds, type DocIds } from "../output/doc-ids.js";
import { readSampleList, writePairsFile, type ScoredPairs } from "../eval/pairs-file.js";
import { WorkerPool } from "../executor/pool.js";
import type { TaskPool } from "../executor/in-process-pool.js";
import { REFERENCE_WORKERS, type ReferenceTasks } from "../eval/exact/reference-entry.js";
import { stderrReporter, type Reporter } from "../executor/progress.js";
import { ensureWritableDir, checkOutputs } from "../util/output-dir.js";
import { takeWorkdir } from "../workdir/use.js";
import { clearStep } from "../workdir/step-dir.js";
import type { ReferenceSteps } from "../eval/exact/reference-blocks.js";

export interface ReferenceContext {
  prepared: PrepareManifest;
  ids: DocIds;
  sampled: Uint8Array | null;
  threshold: number;
  workers: number;
  /** The blocks are kept in the work directory, so that `--resume` continues an interrupted run. */
  steps: ReferenceSteps;
}

/** Checks the options and reads what both reference commands need from the work directory. */
interface ReferenceArgs {
  w: string;
  o: string;
  threshold: number;
  "sample-list"?: string;
  workers?: number;
  resume: boolean;
}

export async function referenceContext(a: ReferenceArgs): Promise<ReferenceContext> {
  await checkOutputs([a.o], a["sample-list"] === undefined ? [] : [a["sample-list"]]);
  const prepared = await readPrepareManifest(a.w);
  await ensureWritableDir(dirname(a.o));
  const ids = loadDocIds(a.w, prepared.counts.shards);
  const sampled = a["sample-list"] === undefined ? null : await readSampleList(a["sample-list"], ids);
  return { prepared, ids, sampled, threshold: a.threshold, workers: a.workers ?? availableParallelism(), steps: { workdir: a.w, resume: a.resume } };
}

/**
 * The body of `similarity` and `hamming-full` (the command's name is its step's, `name`): read
 * the shared context, run `compute` on a pool of reference workers, write its pairs, remove
 * the step's kept blocks and print the summary. `compute` returns the pairs and the number of
 * items (vectors or signatures) compared all against all.
 */
export async function runReferenceCommand(
  a: ReferenceArgs & { quiet: boolean },
  name: string,
  unit: string,
  compute: (ctx: ReferenceContext, pool: TaskPool<ReferenceTasks>, reporter: Reporter) => Promise<{ pairs: ScoredPairs; items: number }>,
): Promise<void> {
  const ctx = await referenceContext(a);
  const t0 = performance.now();
  // The blocks are kept in the work directory: no other run may clear it meanwhile.
  const lock = await takeWorkdir(a.w, { create: false });
  try {
    const pool = new WorkerPool(REFERENCE_WORKERS, ctx.workers);
    let result;
    try {
      result = await compute(ctx, pool, stderrReporter(a.quiet));
    } finally {
      await pool.close();
    }
    await writePairsFile(a.o, result.pairs, ctx.ids);
    await clearStep({ workdir: a.w, name });
    const n = result.items;
    const seconds = (performance.now() - t0) / 1000;
    process.stdout.write(referenceSummary(result.pairs.a.length, ctx.threshold, a.o, seconds, (n * (n - 1)) / 2, unit) + "\n");
  } finally {
    await lock.release();
  }
}

/** "N pairs ≥ T → file in S s (R comparisons/s)". */
export function referenceSummary(pairs: number, threshold: number, path: string, seconds: number, comparisons: number, unit: string): string {
  const rate = seconds > 0 ? (comparisons / seconds).toExponential(2) : "-";
  return `${pairs} pairs ≥ ${threshold} → ${path} in ${seconds.toFixed(2)} s (${comparisons} ${unit}, ${rate}/s)`;
}
