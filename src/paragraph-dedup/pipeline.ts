import { type Pipeline, type StepProgress, markerDone, markersDone } from "../executor/pipeline.js";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { InProcessPool, type TaskPool } from "../executor/in-process-pool.js";
import { WorkerPool } from "../executor/pool.js";
import { stderrReporter } from "../executor/progress.js";
import { readRunConfig, type RunConfig } from "../workdir/run-config.js";
import { readMarker } from "../workdir/layout.js";
import { runWholeTask } from "../executor/tasks.js";
import { timed } from "../executor/timing.js";
import { chunkCountFile, ngramsStep, paragraphOptionsOf, type ParagraphConfig } from "./ngrams-step.js";
import { paragraphs, smallInputs } from "./run-paragraphs.js";
import { paragraphSummary } from "./summary.js";
import { paragraphTasks } from "./tasks.js";


/**
 * What the steps of `paragraphs` need besides config.json (which holds the inputs, the
 * paragraph options and the chunking): where the output and report go, and the later passes' settings.
 */
export interface ParagraphSettings {
  command: "paragraphs";
  /** Output corpus file (absolute). */
  output: string;
  reportPath?: string;
  /** `--memory` of the later passes. */
  memory: number;
  /** Saved indices (`--against`, absolute). */
  against: string[];
  /** `--update`: the output step appends the inputs' n-grams to the one `against` index (absent in older submissions). */
  update?: boolean;
  /** Array size of the n-gram step. */
  tasks: number;
}

/** The marker of the output job: the output is written (the run's other markers are gone by then). */
export const PARAGRAPHS_DONE = "paragraphs-output";

/** Chunks of the corpus, once an n-gram task has read it through. */
async function chunkCount(workdir: string): Promise<number | undefined> {
  const path = chunkCountFile(workdir);
  return existsSync(path) ? (JSON.parse(await readFile(path, "utf8")) as { chunks: number }).chunks : undefined;
}

/**
 * `vertdup paragraphs` as steps (run by Slurm): the n-gram pass as an array of `--tasks` slices of the chunks
 * (each chunk's occurrences saved as a local run with `-w` saves them), then one job that runs
 * `paragraphs` resuming in the work directory: it reads every chunk's n-grams back, and runs
 * the repeats pass (its bucket tables on the job's cores, each a resumable task) and the
 * output pass. The output is the local run's, byte for byte, since a resumed run's is.
 */
export function paragraphPipeline(workdir: string, settings: ParagraphSettings): Pipeline {
  const config = async () => (await readRunConfig(workdir)) as unknown as RunConfig<ParagraphConfig>;
  const finished = () => readMarker<{ chunks: number }>(workdir, PARAGRAPHS_DONE);
  return {
    workdir,
    start: async () => undefined,
    steps: [
    {
      name: "ngrams",
      arraySize: settings.tasks,
      run: async ({ slice, workers, quiet }) => {
        const c = await config();
        // Small inputs in this thread, as the local run decides (no pool to start).
        const pool: TaskPool = (await smallInputs(c.inputs.map((i) => i.path))) ? new InProcessPool(paragraphTasks) : new WorkerPool("paragraphs", workers);
        try {
          await timed(workdir, "ngrams", slice, () => ngramsStep(workdir, c, slice, pool, stderrReporter(quiet)));
        } finally {
          await pool.close();
        }
      },
      progress: async (): Promise<StepProgress> => {
        const done = await finished();
        return done === undefined ? markersDone(workdir, "paragraphs-ngrams-", await chunkCount(workdir)) : { done: done.chunks, total: done.chunks };
      },
    },
    {
      name: "output",
      run: async ({ slice, workers, quiet }) => {
        const c = await config();
        const exec = { workers, quiet, chunkBytes: c.chunkBytes, maxDocBytes: c.maxDocBytes, oversize: c.oversize };
        const run = { memory: settings.memory, reportPath: settings.reportPath, workdir, against: settings.against, update: settings.update === true, resume: true, lockHeld: true };
        await timed(workdir, "output", slice, () =>
          runWholeTask(workdir, PARAGRAPHS_DONE, async () => {
            const report = await paragraphs(c.inputs.map((i) => i.path), settings.output, paragraphOptionsOf(c.prepare), exec, stderrReporter(quiet), run);
            process.stderr.write(`${paragraphSummary(report, settings.reportPath)}\n`);
            // The run's success cleared the steps' markers: this job's goes in their place.
            await mkdir(join(workdir, "markers"), { recursive: true });
            return { chunks: report.counts.chunks };
          }),
        );
      },
      progress: async () => markerDone(workdir, PARAGRAPHS_DONE),
    },
  ],
  };
}
