import { type StepProgress, type Step, markerDone, markersDone } from "../executor/step.js";
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
import { chunkCountFile, ngramsStep, paragraphOptionsOf, type ParagraphConfig } from "../paragraph-dedup/ngrams-step.js";
import { paragraphs, smallInputs } from "../paragraph-dedup/run-paragraphs.js";
import { paragraphSummary } from "../paragraph-dedup/summary.js";
import { paragraphTasks } from "../paragraph-dedup/tasks.js";

import type { SlurmParagraphSettings } from "./slurm-run.js";

/** The marker of the output job: the output is written (the run's other markers are gone by then). */
export const PARAGRAPHS_DONE = "paragraphs-output";

/** Chunks of the corpus, once an n-gram task has read it through. */
async function chunkCount(workdir: string): Promise<number | undefined> {
  const path = chunkCountFile(workdir);
  return existsSync(path) ? (JSON.parse(await readFile(path, "utf8")) as { chunks: number }).chunks : undefined;
}

/**
 * `vertdup paragraphs` on Slurm: the n-gram pass as an array of `--tasks` slices of the chunks
 * (each chunk's occurrences saved as a local run with `-w` saves them), then one job that runs
 * `paragraphs` resuming in the work directory: it reads every chunk's n-grams back, and runs
 * the repeats pass (its bucket tables on the job's cores, each a resumable task) and the
 * output pass. The output is the local run's, byte for byte, since a resumed run's is.
 */
export function paragraphPhases(workdir: string, settings: SlurmParagraphSettings): Step[] {
  const config = async () => (await readRunConfig(workdir)) as unknown as RunConfig<ParagraphConfig>;
  const finished = () => readMarker<{ chunks: number }>(workdir, PARAGRAPHS_DONE);
  return [
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
  ];
}
