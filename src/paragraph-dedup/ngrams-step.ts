import { existsSync } from "node:fs";
import { join } from "node:path";
import { readLimits, noSkippedDocs, type SkippedDocs } from "../corpus/chunker.js";
import { corpusChunks, type CorpusChunk } from "../corpus/corpus-chunks.js";
import { InputPlaces } from "../corpus/input-places.js";
import { skippedDocumentsWarning } from "../corpus/run-warnings.js";
import type { Oversize } from "../core/options.js";
import type { TaskPool } from "../executor/in-process-pool.js";
import type { ParagraphTasks } from "./paragraphs-entry.js";
import type { Reporter } from "../executor/progress.js";
import { inSlice, markerFile, type Slice } from "../workdir/layout.js";
import { consumeTasks, type StepTask } from "../executor/tasks.js";
import { writeAtomic } from "../util/atomic.js";
import type { CorpusStore } from "./corpus-store.js";
import { problemError, type ProblemFound } from "./line-problem.js";
import { OCC_WORDS, type ChunkOccurrences, type LineWarnings, type OccurrenceTask } from "./occurrences.js";
import type { ParagraphOptions } from "../core/paragraph-options.js";
import { loadNgrams, ngramsMarker, saveNgrams, STEP_FOLDER } from "./step-files.js";

/** A chunk with its n-gram pass result. */
export interface Scanned {
  chunk: CorpusChunk;
  r: ChunkOccurrences | ProblemFound;
}

/** What a work directory of `vertdup paragraphs` records: every option that decides a step's files or the output. */
export type ParagraphConfig = ParagraphOptions & { command: "paragraphs"; output: string; against: string };

/** What the n-gram step reads: the inputs cut into chunks of `chunkBytes` within the read limits, and the options that decide the n-grams. */
export interface NgramInput {
  inputs: readonly string[];
  options: ParagraphOptions;
  chunkBytes: number;
  maxDocBytes?: number;
  oversize?: Oversize;
}

const chunksOf = (input: NgramInput, places: InputPlaces, skipped: SkippedDocs) =>
  corpusChunks(input.inputs, places, input.chunkBytes, readLimits(input.maxDocBytes, input.oversize, input.options.docTag), skipped);

/**
 * The n-gram task of a chunk (pass 1): its occurrences and layout computed on the pool and,
 * with a work directory (`steps`), saved there for a resumed run or a later Slurm job to read
 * back. `shared`: occurrences in shared memory (memory mode's repeats tasks read them in
 * place); `reuse`: a buffer for the occurrences, or null.
 */
export function ngramsTask(pool: TaskPool<ParagraphTasks>, chunk: CorpusChunk, options: ParagraphOptions, steps: string | null, shared: () => boolean, reuse: () => ArrayBuffer | null): StepTask<Scanned> {
  return {
    marker: ngramsMarker(chunk.index),
    start: async () => {
      const buffer = reuse();
      const task: OccurrenceTask = { bytes: chunk.bytes, fileStart: chunk.fileStart, ngram: options.ngram, boundary: options.boundary, structure: options.structure, docTag: options.docTag, normalize: options.normalize, ...(options.partitionAttr === undefined ? {} : { partitionAttr: options.partitionAttr }), shared: shared(), reuse: buffer };
      // Buffers are moved to the worker (and back), not copied each way.
      const moved = [...(chunk.bytes instanceof Uint8Array ? [chunk.bytes.buffer as ArrayBuffer] : []), ...(buffer === null ? [] : [buffer])];
      const { result } = await pool.submit("occurrences", task, moved);
      return { result: result.then(async (r) => (steps !== null && (await saveNgrams(steps, chunk.index, r)), { chunk, r })) };
    },
    load: async () => ({ chunk, r: loadNgrams(steps as string, chunk.index, shared()) }),
    stats: ({ r }) => ("problem" in r ? { problem: r.problem } : { tokens: r.tokens, ngrams: r.occ.length / OCC_WORDS }),
  };
}

/** Chunks of the corpus, once an n-gram task has read it through (the step's progress). */
export const chunkCountFile = (workdir: string) => join(workdir, STEP_FOLDER, "chunks.json");

/** The corpus after the n-gram pass, as the later steps of the same process use it. */
export interface Scan {
  /** Every chunk's layout, the bytes of those that cannot be read again and, for the repeats step, the occurrences. */
  store: CorpusStore;
  places: InputPlaces;
  /** Tokens of each chunk. */
  chunkTokens: number[];
  totals: { chunks: number; lines: number; ngrams: number };
  warnings: LineWarnings;
  /** Documents skipped for their size (--oversize skip). */
  skipped: SkippedDocs;
}

/**
 * Pass 1 over the whole corpus into `store`, in corpus order: every chunk's n-gram
 * occurrences and layout, computed on the pool or, where the work directory `saves` has the
 * chunk's marker, read back (a resumed run, or a job after a Slurm array); with `saves`, each
 * computed chunk is saved there with its marker. A chunk's bad line is reported here, where
 * the lines are numbered. Without `occurrences`, the store gets only what the output pass needs.
 */
export async function scanCorpus(input: NgramInput, store: CorpusStore, saves: string | null, pool: TaskPool<ParagraphTasks>, reporter: Reporter, occurrences = true): Promise<Scan> {
  const places = new InputPlaces(input.inputs);
  const scan: Scan = { store, places, chunkTokens: [], totals: { chunks: 0, lines: 0, ngrams: 0 }, warnings: { emptyLine: 0, tagOutsideDoc: 0 }, skipped: noSkippedDocs() };
  const { totals, warnings } = scan;
  let tokens = 0;
  const freeOcc: ArrayBuffer[] = [];
  // Line of each chunk's start in its file, known once the chunks ahead are counted.
  let fileLine = 1;
  const progress = reporter.progress("n-grams", "tokens");
  const consume = ({ chunk, r }: Scanned) => {
    if (chunk.firstLine !== undefined) fileLine = chunk.firstLine;
    else if (chunk.fileStart) fileLine = 1;
    if ("problem" in r) throw problemError(chunk.file, fileLine, r.problem);
    fileLine += r.lines;
    store.add(chunk.index, r.bytes ?? chunk.bytes, r, occurrences);
    // Written to the run files by now: the buffer can take a later chunk's occurrences.
    if (store.external && r.occ.buffer instanceof ArrayBuffer) freeOcc.push(r.occ.buffer);
    scan.chunkTokens[chunk.index] = r.tokens;
    totals.lines += r.lines;
    totals.ngrams += r.occ.length / OCC_WORDS;
    warnings.emptyLine += r.warnings.emptyLine;
    warnings.tagOutsideDoc += r.warnings.tagOutsideDoc;
    tokens += r.tokens;
    progress.update(tokens);
  };
  async function* tasks(): AsyncGenerator<StepTask<Scanned>> {
    for await (const chunk of chunksOf(input, places, scan.skipped)) {
      totals.chunks++;
      yield ngramsTask(pool, chunk, input.options, saves, () => occurrences && !store.external, () => freeOcc.pop() ?? null);
    }
  }
  await consumeTasks(saves, tasks(), consume, pool.limit);
  const skipWarning = skippedDocumentsWarning(scan.skipped, "left out of the output");
  if (skipWarning !== undefined) reporter.info(skipWarning);
  store.finishRuns();
  progress.finish();
  if (saves !== null && !existsSync(chunkCountFile(saves))) await writeAtomic(chunkCountFile(saves), `${JSON.stringify({ chunks: totals.chunks })}\n`);
  return scan;
}

/**
 * Pass 1 for the chunks of one slice, as a Slurm array task runs it: every chunk of the slice
 * whose marker is not in place has its n-grams saved in the work directory, for the repeats
 * job to read back. Every slice reads the corpus through to cut it as the local run does; a
 * line that is not valid is reported with its file and line by that later job, which numbers
 * the lines.
 */
export async function ngramsStep(workdir: string, input: NgramInput, slice: Slice, pool: TaskPool<ParagraphTasks>, reporter: Reporter): Promise<void> {
  const places = new InputPlaces(input.inputs);
  const progress = reporter.progress("n-grams", "tokens");
  const free: ArrayBuffer[] = [];
  let chunks = 0;
  let tokens = 0;
  async function* tasks(): AsyncGenerator<StepTask<Scanned>> {
    for await (const chunk of chunksOf(input, places, noSkippedDocs())) {
      chunks++;
      if (!inSlice(chunk.index, slice) || existsSync(markerFile(workdir, ngramsMarker(chunk.index)))) continue;
      yield ngramsTask(pool, chunk, input.options, workdir, () => false, () => free.pop() ?? null);
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
