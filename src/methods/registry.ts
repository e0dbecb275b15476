import type { Pipeline } from "../executor/pipeline.js";
import type { SubmissionSettings } from "../executor/slurm/settings.js";
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

/** The pipeline a Slurm submission stored (slurm/run.json) in `workdir`. */
export function submittedPipeline(workdir: string, settings: SubmissionSettings): Pipeline {
  // What was stored is what the submission's job settings were (readSlurmSettings), and the
  // lock's token, which a later submission changes: no step's marker may depend on it.
  const { token: _token, ...job } = settings;
  return pipelineOf(workdir, job as unknown as JobSettings);
}
