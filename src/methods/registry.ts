import type { Pipeline } from "../executor/pipeline.js";
import { readSlurmSettings, submissionKind, type SubmissionSettings } from "../executor/slurm/settings.js";
import { paragraphPipeline, type ParagraphSettings } from "../paragraph-dedup/pipeline.js";
import { lshCosinePipeline, type LshCosineSettings } from "./lsh-cosine/pipeline.js";
import { setMethodPipeline, type SetMethodSettings } from "./sets/pipeline.js";

/** What vertdup runs as a pipeline: a method's run (`run --method`), or a command (`paragraphs`). */
export type JobSettings = LshCosineSettings | SetMethodSettings | ParagraphSettings;

/** The pipeline of a job's `settings` in `workdir`: the one list of steps the local and Slurm executors run. */
export function pipelineOf(workdir: string, settings: JobSettings): Pipeline {
  if ("command" in settings) return paragraphPipeline(workdir, settings);
  return settings.method === "lsh-cosine" ? lshCosinePipeline(workdir, settings) : setMethodPipeline(workdir, settings);
}

/** The job a Slurm submission stored in `workdir` (slurm/run.json): what it runs, and its pipeline. */
export async function submittedJob(workdir: string): Promise<{ kind: ReturnType<typeof submissionKind>; pipeline: Pipeline }> {
  const stored = await readSlurmSettings(workdir);
  // Submitted before `slurm run` had --method: lsh-cosine.
  const settings = (stored.command === undefined ? { method: "lsh-cosine", ...stored } : stored) as SubmissionSettings;
  // The lock's token changes with every submission: no step's marker may depend on it.
  const { token: _token, ...job } = settings;
  return { kind: submissionKind(settings), pipeline: pipelineOf(workdir, job as unknown as JobSettings) };
}
