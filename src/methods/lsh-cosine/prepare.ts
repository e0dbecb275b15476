import { checkReadable } from "../../corpus/open-input.js";
import { projectionFormat } from "../../sketch/random-vectors.js";
import { wordsPerSignature } from "../../sketch/signature.js";
import { DEFAULT_CHUNK_BYTES, type ExecutionOptions, type PrepareOptions } from "../../core/options.js";
import { VertdupError } from "../../core/errors.js";
import { WorkerPool } from "../../executor/pool.js";
import type { PrepareManifest } from "../../features/prepare-manifest.js";
import type { Reporter } from "../../executor/progress.js";
import { adoptRunConfig, stampInputs, type RunConfig } from "../../workdir/run-config.js";
import { countStep } from "../../features/count-step.js";
import { mergeStep, writePrepareManifest } from "../../runs/merge-step.js";
import { signStep } from "../../sketch/sign-step.js";
import { timed } from "../../executor/timing.js";
import { vocabularyStep } from "../../features/vocabulary-step.js";
import { emptyDocumentsWarning, skippedDocumentsWarning } from "../../corpus/run-warnings.js";
import { createWorkdir, resetWorkdir, WHOLE } from "../../workdir/layout.js";
import type { SupplementedCorpus } from "./against.js";

/** The projectionFormat of a configuration: recorded for int8 vectors only, so float32 work directories keep their fingerprint. */
function withFormat(options: PrepareOptions): Pick<RunConfig, "projectionFormat"> {
  const format = projectionFormat(options.projection);
  return format === undefined ? {} : { projectionFormat: format };
}

/** Checks the inputs and options of a preparatory phase and records them in the work directory. */
export async function startPrepare(
  inputs: readonly string[],
  workdir: string,
  options: PrepareOptions,
  exec: ExecutionOptions,
  resume: boolean,
  firstOrdinal?: number,
): Promise<RunConfig> {
  wordsPerSignature(options.bits);
  for (const input of inputs) await checkReadable(input);
  if (inputs.filter((i) => i === "-").length > 1) throw new VertdupError("standard input (-) can be given only once");
  await createWorkdir(workdir);
  const config: RunConfig = { inputs: await stampInputs(inputs), prepare: options, chunkBytes: exec.chunkBytes ?? DEFAULT_CHUNK_BYTES, maxDocBytes: exec.maxDocBytes, ...(exec.oversize === "skip" ? { oversize: "skip" } : {}), ...(firstOrdinal === undefined ? {} : { firstOrdinal }), ...withFormat(options) };
  if (!(await adoptRunConfig(workdir, config, resume))) await resetWorkdir(workdir);
  return config;
}

/**
 * The preparatory phase: corpus → term counts and df per shard (pass 1) → vocabulary →
 * signatures per shard as sorted runs (pass 2) → merged signature store. Each step skips
 * the tasks whose markers are in place, so `resume` continues an interrupted run. With
 * `supplement` (--against) the inputs are the batch: its ordinals follow the indices', it is
 * signed with their frozen weights and its runs are merged with their stores.
 */
export async function prepare(
  inputs: readonly string[],
  workdir: string,
  options: PrepareOptions,
  exec: ExecutionOptions,
  reporter: Reporter,
  resume = false,
  supplement?: SupplementedCorpus,
): Promise<PrepareManifest> {
  const config = await startPrepare(inputs, workdir, options, exec, resume, supplement?.firstOrdinal);
  const pool = new WorkerPool("prepare", exec.workers);
  try {
    await timed(workdir, "count", WHOLE, () => countStep(workdir, config, WHOLE, pool, reporter));
    await timed(workdir, "vocabulary", WHOLE, () => vocabularyStep(workdir, config, reporter, exec.memory));
    await timed(workdir, "sign", WHOLE, () => signStep(workdir, config, WHOLE, pool, reporter, supplement && ((kept) => supplement.weights(kept))));
  } finally {
    await pool.close();
  }
  await timed(workdir, "merge", WHOLE, () => mergeStep(workdir, supplement && (() => supplement.storeStreams())));
  const manifest = await writePrepareManifest(workdir, config);
  const { emptyDocuments, documents } = manifest.counts;
  const skipped = skippedDocumentsWarning(manifest.warnings.oversizeSkipped, "they have no term and are in no pair");
  if (skipped !== undefined) reporter.info(skipped);
  const warning = emptyDocumentsWarning(emptyDocuments, documents, "term", "--min-df, --max-df, --column, --keep-numbers");
  if (warning !== undefined) reporter.info(warning);
  return manifest;
}
