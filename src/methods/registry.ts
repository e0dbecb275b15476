import type { MethodName } from "../core/method-options.js";
import type { Pipeline } from "../executor/pipeline.js";
import { readSlurmSettings, submissionKind, type SubmissionSettings } from "../executor/slurm/settings.js";
import { paragraphPipeline, type ParagraphSettings } from "../paragraph-dedup/pipeline.js";
import { LSH_COSINE, type LshCosineSettings } from "./lsh-cosine/pipeline.js";
import type { MethodManifest, RunManifest } from "./manifest.js";
import type { MethodRunner, RunRequest } from "./method.js";
import { SET_METHOD, type SetMethodSettings } from "./sets/pipeline.js";
import type { SetMethod } from "./sets/set-method.js";

/** The runner of each method: lsh-cosine's pipeline, or the one the set methods share. */
const RUNNERS: { [M in MethodName]: MethodRunner<M extends "lsh-cosine" ? LshCosineSettings : SetMethodSettings> } = {
  "lsh-cosine": LSH_COSINE,
  minhash: SET_METHOD,
  paragraphs: SET_METHOD,
  simhash384: SET_METHOD,
  exact: SET_METHOD,
};

/** The settings of a method's pipeline (stored at a Slurm submission). */
export type MethodSettings = LshCosineSettings | SetMethodSettings;

/** What vertdup runs as a pipeline: a method's run (`run --method`), or a command (`paragraphs`). */
export type JobSettings = MethodSettings | ParagraphSettings;

/** What a run made: its summary lines and manifest.json. */
export type RunResult = { summary: string } & ({ method: "lsh-cosine"; manifest: RunManifest } | { method: SetMethod; manifest: MethodManifest });

/** The runner of `settings`' method: RUNNERS pairs each method with the runner of its settings. */
function runnerOf(settings: MethodSettings): MethodRunner<MethodSettings> {
  return RUNNERS[settings.method] as MethodRunner<MethodSettings>;
}

/** The settings of the pipeline that runs `request`. */
export function methodJob(request: RunRequest): MethodSettings {
  return RUNNERS[request.method].settings(request);
}

/** A method run's refusals and indices, said before any work (MethodRunner.check). */
export function checkMethodJob(settings: MethodSettings, submittedTo?: string): Promise<void> {
  return runnerOf(settings).check(settings, submittedTo);
}

/** The manifest and summary of a finished method run. */
export async function finishedRun(settings: MethodSettings): Promise<RunResult> {
  const { manifest, summary } = await runnerOf(settings).finished(settings.outdir);
  return { method: settings.method, manifest, summary } as RunResult;
}

/** The pipeline of a job's `settings` in `workdir`: the one list of steps the local and Slurm executors run. */
export function pipelineOf(workdir: string, settings: JobSettings): Pipeline {
  if ("command" in settings) return paragraphPipeline(workdir, settings);
  return runnerOf(settings).pipeline(workdir, settings);
}

/** The job a Slurm submission stored in `workdir` (slurm/run.json): what it runs, and its pipeline. */
export async function submittedJob(workdir: string): Promise<{ kind: ReturnType<typeof submissionKind>; pipeline: Pipeline; lockedOutdir?: string }> {
  const stored = await readSlurmSettings(workdir);
  // Submitted before `slurm run` had --method: lsh-cosine.
  const settings = (stored.command === undefined ? { method: "lsh-cosine", ...stored } : stored) as SubmissionSettings;
  // The lock's token changes with every submission: no step's marker may depend on it.
  const { token: _token, lockedOutdir, ...job } = settings;
  return { kind: submissionKind(settings), pipeline: pipelineOf(workdir, job as unknown as JobSettings), lockedOutdir };
}
