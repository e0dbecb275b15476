import { existsSync } from "node:fs";
import { join } from "node:path";
import { readLimits, noSkippedDocs } from "../corpus/chunker.js";
import { corpusChunks, type CorpusChunk } from "../corpus/corpus-chunks.js";
import { InputPlaces } from "../corpus/input-places.js";
import type { TaskPool } from "../executor/in-process-pool.js";
import type { Reporter } from "../executor/progress.js";
import type { RunConfig } from "../workdir/run-config.js";
import { inSlice, markerFile, type Slice } from "../workdir/layout.js";
import { consumeTasks, type StepTask } from "../executor/tasks.js";
import { writeAtomic } from "../util/atomic.js";
import type { ProblemFound } from "./line-problem.js";
import { OCC_WORDS, type ChunkOccurrences, type OccurrenceTask } from "./occurrences.js";
import type { ParagraphOptions } from "../core/paragraph-options.js";
import { loadNgrams, ngramsMarker, saveNgrams, STEP_FOLDER } from "./step-files.js";

/** A chunk with its n-gram pass result. */
export interface Scanned {
  chunk: CorpusChunk;
  r: ChunkOccurrences | ProblemFound;
}

/** What a work directory of `vertdup paragraphs` records: every option that decides a step's files or the output. */
export type ParagraphConfig = ParagraphOptions & { command: "paragraphs"; output: string; against: string };

/** The options of the passes, out of a work directory's configuration. */
export function paragraphOptionsOf({ command: _command, output: _output, against: _against, ...options }: ParagraphConfig): ParagraphOptions {
  return options;
}

/**
 * The n-gram task of a chunk (pass 1): its occurrences and layout computed on the pool and,
 * with a work directory (`steps`), saved there for a resumed run or a later Slurm job to read
 * back. `shared`: occurrences in shared memory (memory mode's repeats tasks read them in
 * place); `reuse`: a buffer for the occurrences, or null.
 */
export function ngramsTask(pool: TaskPool, chunk: CorpusChunk, options: ParagraphOptions, steps: string | null, shared: () => boolean, reuse: () => ArrayBuffer | null): StepTask<Scanned> {
  return {
    marker: ngramsMarker(chunk.index),
    start: async () => {
      const buffer = reuse();
      const task: OccurrenceTask = { bytes: chunk.bytes, fileStart: chunk.fileStart, ngram: options.ngram, boundary: options.boundary, structure: options.structure, docTag: options.docTag, shared: shared(), reuse: buffer };
      // Buffers are moved to the worker (and back), not copied each way.
      const moved = [...(chunk.bytes instanceof Uint8Array ? [chunk.bytes.buffer as ArrayBuffer] : []), ...(buffer === null ? [] : [buffer])];
      const { result } = await pool.submit<ChunkOccurrences | ProblemFound>("occurrences", task, moved);
      return { result: result.then(async (r) => (steps !== null && (await saveNgrams(steps, chunk.index, r)), { chunk, r })) };
    },
    load: async () => ({ chunk, r: loadNgrams(steps as string, chunk.index, shared()) }),
    stats: ({ r }) => ("problem" in r ? { problem: r.problem } : { tokens: r.tokens, ngrams: r.occ.length / OCC_WORDS }),
  };
}

/** Chunks of the corpus, as the n-gram tasks of a Slurm run found them (for `slurm status`). */
export const chunkCountFile = (workdir: string) => join(workdir, STEP_FOLDER, "chunks.json");

/**
 * Pass 1 for the chunks of one slice, as a Slurm array task runs it: every chunk of the slice
 * whose marker is not in place has its n-grams saved in the work directory (config.json in
 * place), for the job of the later passes, which runs `paragraphs` resuming, to read back.
 * Every slice reads the corpus through to cut it as the local run does; a line that is not
 * valid is reported with its file and line by that later job, which numbers the lines.
 */
export async function ngramsStep(workdir: string, config: RunConfig<ParagraphConfig>, slice: Slice, pool: TaskPool, reporter: Reporter): Promise<void> {
  const options = paragraphOptionsOf(config.prepare);
  const inputs = config.inputs.map((i) => i.path);
  const places = new InputPlaces(inputs);
  const progress = reporter.progress("n-grams", "tokens");
  const free: ArrayBuffer[] = [];
  let chunks = 0;
  let tokens = 0;
  async function* tasks(): AsyncGenerator<StepTask<Scanned>> {
    for await (const chunk of corpusChunks(inputs, places, config.chunkBytes, readLimits(config.maxDocBytes, config.oversize, options.docTag), noSkippedDocs())) {
      chunks++;
      if (!inSlice(chunk.index, slice) || existsSync(markerFile(workdir, ngramsMarker(chunk.index)))) continue;
      yield ngramsTask(pool, chunk, options, workdir, () => false, () => free.pop() ?? null);
    }
  }
  await consumeTasks(
    workdir,
    tasks(),
    ({ r }) => {
      if ("problem" in r) return;
      // Saved by now: the buffer can take a later chunk's occurrences.
      if (r.occ.buffer instanceof ArrayBuffer) free.push(r.occ.buffer);
      progress.update((tokens += r.tokens));
    },
    pool.limit,
  );
  places.checkUnchanged();
  progress.finish();
  await writeAtomic(chunkCountFile(workdir), `${JSON.stringify({ chunks })}\n`);
}
