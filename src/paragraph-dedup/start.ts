import { access } from "node:fs/promises";
import { constants as fsConstants } from "node:fs";
import { dirname } from "node:path";
import { checkReadable } from "../corpus/open-input.js";
import { VertdupError } from "../core/errors.js";
import type { ParagraphOptions } from "../core/paragraph-options.js";
import { checkOutputs } from "../util/output-dir.js";
import { checkAgainstUse } from "../workdir/index-store.js";
import { lockWorkdirs, type WorkdirLock } from "../workdir/lock.js";
import { stampInputs, type RunConfig } from "../workdir/run-config.js";
import { openIndices, type SavedIndex } from "./ngram-index.js";
import type { NgramInput, ParagraphConfig } from "./ngrams-step.js";

async function checkWritableDir(output: string): Promise<void> {
  if (output === "-") return;
  try {
    await access(dirname(output), fsConstants.W_OK);
  } catch {
    throw new VertdupError(`${output}: cannot write output (directory missing or not writable)`);
  }
}

/** What a paragraph job reads and writes, as its checks need it. */
export interface JobFiles {
  inputs: readonly string[];
  output: string;
  reportPath?: string;
  against: readonly string[];
  update: boolean;
}

/**
 * Says what is wrong with the inputs, outputs and indices of a job before any work (locally
 * and at a Slurm submission); `resume`: a local `--resume`, refused where it cannot work.
 */
export async function checkJob(job: JobFiles, workdir: string | undefined, resume: boolean): Promise<void> {
  const { inputs, output, reportPath } = job;
  for (const input of inputs) await checkReadable(input);
  if (inputs.filter((i) => i === "-").length > 1) throw new VertdupError("standard input (-) can be given only once");
  await checkOutputs(reportPath === undefined ? [output] : [output, reportPath], inputs);
  await checkWritableDir(output);
  if (reportPath !== undefined) await checkWritableDir(reportPath);
  if (resume) checkResume(job, workdir);
  checkAgainstUse(job.against, { update: job.update, workdir });
}

/**
 * Refuses a local `--resume` without a work directory, to standard output, or with
 * `--update` (the interrupted run may have committed the index already). A Slurm submission
 * resumes whenever submitted again: its jobs cannot write standard output, and an --update
 * submitted again after its commit is refused by the inputs' digests.
 */
function checkResume(job: JobFiles, workdir: string | undefined): void {
  if (workdir === undefined) throw new VertdupError("--resume needs the work directory of the interrupted run (-w)");
  // A finished output step would be skipped, and standard output cannot be continued: nothing would be written.
  if (job.output === "-") throw new VertdupError("--resume cannot be combined with -o - (standard output cannot be continued where an interrupted run stopped): write the output to a file");
  if (job.update) throw new VertdupError("--resume cannot be combined with --update (the interrupted run may have updated the index already): run again without --resume");
}

/** The `--against` indices, read under their locks (held by the caller until it is done with them). */
export interface HeldIndices {
  indices: SavedIndex[];
  lock: WorkdirLock;
}

/**
 * Reads and checks the `--against` indices, then locks them all and reads them again under
 * the locks (which need the directories to exist): no update changes an index while a run
 * reads it, and two updates would miss each other's n-grams.
 */
export async function lockIndices(against: readonly string[], options: ParagraphOptions): Promise<HeldIndices> {
  await openIndices(against, options);
  const lock = await lockWorkdirs(against);
  try {
    return { indices: await openIndices(against, options), lock };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

/** The indices as a configuration names them: an index is the same while its generation is (--update is what changes one). */
export function againstKey(indices: readonly SavedIndex[]): string {
  return indices.map((index) => `${index.dir}@${index.manifest.generation}`).join(" ");
}

/** The configuration a work directory records: what a resumed run, or a later Slurm job, must share with the run that started. */
export async function runConfig(input: NgramInput, output: string, indices: readonly SavedIndex[]): Promise<RunConfig<ParagraphConfig>> {
  return {
    inputs: await stampInputs(input.inputs),
    prepare: { command: "paragraphs", output, against: againstKey(indices), ...input.options },
    chunkBytes: input.chunkBytes,
    maxDocBytes: input.maxDocBytes,
    ...(input.oversize === "skip" ? { oversize: "skip" } : {}),
  };
}
