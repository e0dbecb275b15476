import { type InputDigest, checkAgainstUse, IndexUpdate, newIndex, removeIndex } from "../workdir/index-store.js";
import { noSkippedDocs, readLimits, type SkippedDocs } from "../corpus/chunker.js";
import { skippedDocumentsWarning } from "../corpus/run-warnings.js";
import { access, mkdir, rm, stat } from "node:fs/promises";
import { constants as fsConstants, existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { checkReadable, compressionOf } from "../corpus/open-input.js";
import { InProcessPool, type TaskPool } from "../executor/in-process-pool.js";
import { temporaryDirectory } from "../workdir/use.js";
import { claimWorkdir, readMarker } from "../workdir/layout.js";
import { adoptRunConfig, CONFIG_FILE, readRunConfig, stampInputs, type RunConfig } from "../workdir/run-config.js";
import { consumeTasks, runTasks, type StepTask } from "../executor/tasks.js";
import { loadRepeats, RENDER_MARKER, repeatsMarker, saveRepeats, STEP_FOLDER } from "./step-files.js";
import { ngramsTask, type ParagraphConfig, type Scanned } from "./ngrams-step.js";
import { lockWorkdir, lockWorkdirs, type WorkdirLock } from "../workdir/lock.js";
import { checkedDigests, digestInputs } from "../workdir/batch-digest.js";
import { atExit } from "../util/exit-cleanup.js";
import { killPoint } from "../util/kill-point.js";
import { keyOptions, KeysWriter, openIndices, overlaps, PARAGRAPHS_METHOD, type KeyRange, type SavedIndex } from "./ngram-index.js";
import { PhaseClock, type PhaseTiming } from "../executor/timing.js";
import type { Reporter } from "../executor/progress.js";
import { DEFAULT_CHUNK_BYTES, type ExecutionOptions } from "../core/options.js";
import { writeAtomic } from "../util/atomic.js";
import { VertdupError } from "../core/errors.js";
import { refuseOverwritingInputs } from "../util/output-dir.js";
import { packageVersion } from "../util/package-info.js";
import type { RepeatsResult, RepeatsTask } from "./bucket-task.js";
import { corpusChunks } from "../corpus/corpus-chunks.js";
import { CorpusStore } from "./corpus-store.js";
import { InOrder } from "../executor/in-order.js";
import { InputPlaces } from "../corpus/input-places.js";
import { problemError } from "./line-problem.js";
import { OCC_WORDS, type LineWarnings } from "./occurrences.js";
import { DEFAULT_MEMORY, type ParagraphOptions } from "../core/paragraph-options.js";
import { openOutput, type OutputFile } from "../output/output-file.js";
import type { Rendered, RenderStats, RenderTask } from "./render.js";
import { RepeatedEnds } from "./repeated-ends.js";
import { splitBuckets, tableKeys } from "./split-plan.js";
import { paragraphTasks } from "./tasks.js";

/**
 * Inputs of less text than this run in this thread: starting the worker pool (threads that
 * each load the modules) costs more than the workers save. Measured in README "Paragraph dedup".
 */
export const IN_PROCESS_BELOW = 16 * 1024 ** 2;
/** Tasks the repeats step groups the bucket tables of memory mode into (one marker each). */
const MEMORY_MODE_REPEATS_TASKS = 16;
/** A compressed input counts as this many times its size (gzip of vertical text: about 4×). */
const COMPRESSED_TEXT_GUESS = 4;

/** The JSON report of a `vertdup paragraphs` run (also what the library call returns). */
export interface ParagraphReport {
  version: string;
  inputs: string[];
  output: string;
  /** The saved indices whose n-grams counted as seen before the inputs (`--against`). */
  against: string[];
  options: ParagraphOptions;
  mode: "memory" | "external";
  /** The passes ran in the main thread (small inputs), not on the worker pool. */
  inProcess: boolean;
  /** `tables`: bucket tables of the repeats pass (more than the 256 buckets when split). */
  counts: RenderStats & { chunks: number; lines: number; ngrams: number; tables: number };
  /** With the documents skipped for their size (--oversize skip), left out of the output. */
  warnings: LineWarnings & { oversizeSkipped?: SkippedDocs };
  phases: Record<string, PhaseTiming>;
}

export interface ParagraphRun {
  /** Bytes of n-gram occurrences, layouts and unreadable-again chunks kept in memory before going external; in external mode, what the bucket tables share. */
  memory?: number;
  /** Where the report goes; none when undefined. */
  reportPath?: string;
  /** Run in this thread (true) or on the worker pool (false); by default by size (IN_PROCESS_BELOW). */
  inProcess?: boolean;
  /** Work directory (`-w`): kept, and left as an index of the inputs' n-grams when the run completes; a temporary one otherwise. */
  workdir?: string;
  /** Saved indices (`--against`): their n-grams count as seen before the inputs'. */
  against?: readonly string[];
  /** Append the inputs' n-grams to the one `against` index once the output is written (`--update`). */
  update?: boolean;
  /** `--resume`: keep what the steps of an interrupted run in the same work directory finished. */
  resume?: boolean;
  /** The work directory's lock is held for this run by its caller (a job of `slurm paragraphs`): not taken again. */
  lockHeld?: boolean;
}

/** Folder of the passes' files in a work directory; removed when the run ends, leaving the index. */
const SCRATCH = "paragraphs";

/** Where a run keeps its files (work-directory layout: docs/ARCHITECTURE.md). */
interface RunDirectories {
  /** The passes' transient files (runs, spool, splits), cleared at every start. */
  scratch: string;
  /** The work directory, where the steps leave their markers and saved results (step-files.ts); null without one (nothing to resume). */
  steps: string | null;
  /** Ends the run's use: the scratch folder goes, the steps' files too after a success. */
  release(success: boolean): Promise<void>;
}

/**
 * Refuses `--resume` where it cannot work: without a work directory, to standard output, with
 * `--update` outside a Slurm job (the interrupted run may have committed the index already),
 * into another command's directory.
 */
async function checkResume(run: ParagraphRun, output: string): Promise<void> {
  if (run.resume !== true) return;
  if (run.workdir === undefined) throw new VertdupError("--resume needs the work directory of the interrupted run (-w)");
  // A finished render step would be skipped, and standard output cannot be continued: nothing would be written.
  if (output === "-") throw new VertdupError("--resume cannot be combined with -o - (standard output cannot be continued where an interrupted run stopped): write the output to a file");
  // A `slurm paragraphs` job (lockHeld) resumes its own array's n-grams: run again after its
  // commit, it is refused by the inputs' digests (checkRepeat) before anything is appended.
  if (run.update === true && run.lockHeld !== true) throw new VertdupError("--resume cannot be combined with --update (the interrupted run may have updated the index already): run again without --resume");
  if (!existsSync(join(run.workdir, CONFIG_FILE))) return;
  const previous = (await readRunConfig(run.workdir)).prepare as Partial<ParagraphConfig>;
  if (previous.command !== "paragraphs") throw new VertdupError(`${run.workdir}: refusing to resume: the work directory was made by another command than vertdup paragraphs`);
}

/** The configuration a work directory records (none without one): what a resumed run must share with the interrupted one. */
export async function runConfig(run: ParagraphRun, inputs: readonly string[], output: string, options: ParagraphOptions, exec: ExecutionOptions, indices: readonly SavedIndex[]): Promise<RunConfig<ParagraphConfig> | null> {
  if (run.workdir === undefined) return null;
  // An index is the same while its generation is: --update is what changes one.
  const against = indices.map((index) => `${index.dir}@${index.manifest.generation}`).join(" ");
  return {
    inputs: await stampInputs(inputs),
    prepare: { command: "paragraphs", output, against, ...options },
    chunkBytes: exec.chunkBytes ?? DEFAULT_CHUNK_BYTES,
    maxDocBytes: exec.maxDocBytes,
    ...(exec.oversize === "skip" ? { oversize: "skip" } : {}),
  };
}

/** Removes what the steps of an earlier run left in a work directory (its markers and saved results). */
export async function clearParagraphSteps(workdir: string): Promise<void> {
  await Promise.all(["markers", STEP_FOLDER].map((d) => rm(join(workdir, d), { recursive: true, force: true })));
}

/**
 * The run's directories: in a work directory (claimed and locked; its index removed, since the
 * run makes a new one; the steps' files kept from an interrupted run with the same
 * configuration when resuming, else cleared), or a temporary directory, whose steps save nothing.
 */
async function runDirectories(run: ParagraphRun, config: RunConfig<ParagraphConfig> | null, tmpDir: string | undefined): Promise<RunDirectories> {
  if (run.workdir === undefined || config === null) {
    const temporary = await temporaryDirectory(tmpDir, "vertdup-paragraphs-");
    return { scratch: temporary.path, steps: null, release: () => temporary.remove() };
  }
  const workdir = run.workdir;
  await claimWorkdir(workdir);
  const lock = run.lockHeld === true ? null : await lockWorkdir(workdir);
  const path = join(workdir, SCRATCH);
  const forget = atExit(() => rmSync(path, { recursive: true, force: true }));
  const clearSteps = () => clearParagraphSteps(workdir);
  try {
    await removeIndex(workdir);
    if (!(await adoptRunConfig(workdir, config, run.resume === true))) await clearSteps();
    await mkdir(join(workdir, "markers"), { recursive: true });
    await mkdir(join(workdir, STEP_FOLDER), { recursive: true });
    await rm(path, { recursive: true, force: true });
    await mkdir(path);
  } catch (err) {
    forget();
    await lock?.release();
    throw err;
  }
  return {
    scratch: path,
    steps: workdir,
    async release(success) {
      forget();
      await rm(path, { recursive: true, force: true });
      // Left as an index alone: a later --resume there starts over.
      if (success) await Promise.all([clearSteps(), rm(join(workdir, CONFIG_FILE), { force: true })]);
      await lock?.release();
    },
  };
}

/** Refuses `--update` without exactly one `--against`, reads and checks the indices, and locks them all for the run. */
async function savedIndices(run: ParagraphRun, options: ParagraphOptions, inputs: readonly string[], warn: (message: string) => void): Promise<{ indices: SavedIndex[]; lock: WorkdirLock | null; digests: (InputDigest | null)[] }> {
  const against = run.against ?? [];
  checkAgainstUse(against, { update: run.update === true, workdir: run.workdir });
  if (against.length === 0) return { indices: [], lock: null, digests: run.workdir === undefined ? [] : await digestInputs(inputs) };
  // Checked before the locks (which need the directories), read again under them: no update
  // changes an index while this run reads it, and two updates would miss each other's n-grams.
  await openIndices(against, options);
  const lock = await lockWorkdirs(against);
  try {
    const indices = await openIndices(against, options);
    return { indices, lock, digests: await checkedDigests(indices, inputs, run.update === true, warn) };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

/** Whether the inputs hold less text than IN_PROCESS_BELOW (standard input and pipes: unknown, so no). */
export async function smallInputs(inputs: readonly string[]): Promise<boolean> {
  let text = 0;
  for (const input of inputs) {
    if (input === "-") return false;
    const s = await stat(input);
    if (!s.isFile()) return false;
    text += compressionOf(input) === "none" ? s.size : s.size * COMPRESSED_TEXT_GUESS;
  }
  return text < IN_PROCESS_BELOW;
}

async function checkWritableDir(output: string): Promise<void> {
  if (output === "-") return;
  try {
    await access(dirname(output), fsConstants.W_OK);
  } catch {
    throw new VertdupError(`${output}: cannot write output (directory missing or not writable)`);
  }
}

/** Says what is wrong with the inputs, outputs and work-directory use of a run before any work (also at a Slurm submission). */
export async function checkRun(inputs: readonly string[], output: string, run: ParagraphRun): Promise<void> {
  for (const input of inputs) await checkReadable(input);
  if (inputs.filter((i) => i === "-").length > 1) throw new VertdupError("standard input (-) can be given only once");
  await refuseOverwritingInputs(run.reportPath === undefined ? [output] : [output, run.reportPath], inputs);
  await checkWritableDir(output);
  if (run.reportPath !== undefined) await checkWritableDir(run.reportPath);
  await checkResume(run, output);
}

/**
 * `vertdup paragraphs`: onion-style removal (or marking) of near-duplicate units.
 * Three passes on the worker pool, each over chunks split before document tags:
 * 1. n-grams: every chunk's n-gram occurrences, grouped into buckets by key;
 * 2. repeats: per bucket, in corpus order, the occurrences whose key was already seen
 *    (first occurrence wins), gathered per chunk as bits by the n-grams' last tokens;
 * 3. render: per chunk, the onion decision and the output lines, written here in order.
 * The result equals the sequential definition whatever the workers, chunk size and mode.
 */
export async function paragraphs(
  inputs: readonly string[],
  output: string,
  options: ParagraphOptions,
  exec: ExecutionOptions,
  reporter: Reporter,
  run: ParagraphRun = {},
): Promise<ParagraphReport> {
  await checkRun(inputs, output, run);
  const inProcess = run.inProcess ?? (await smallInputs(inputs));
  const { indices, lock: indexLock, digests } = await savedIndices(run, options, inputs, (m) => reporter.info(`warning: ${m}`));
  const dirs = await runConfig(run, inputs, output, options, exec, indices)
    .then((config) => runDirectories(run, config, exec.tmpDir))
    .catch(async (err: unknown) => {
      await indexLock?.release();
      throw err;
    });
  const { scratch: dir, steps } = dirs;
  const memory = run.memory ?? DEFAULT_MEMORY;
  const store = new CorpusStore(dir, memory);
  // The pool's module (and piscina) is loaded only when a pool runs.
  const pool: TaskPool = inProcess ? new InProcessPool(paragraphTasks) : new (await import("../executor/pool.js")).WorkerPool("paragraphs", exec.workers);
  const clock = new PhaseClock();
  // Opened by the render step: whatever fails after, the temporary output is removed.
  let out: OutputFile | null = null;
  let success = false;
  const warnings: LineWarnings = { emptyLine: 0, tagOutsideDoc: 0 };
  const skipped = noSkippedDocs();
  const totals = { chunks: 0, lines: 0, ngrams: 0, tables: 0 };
  let repeats: RepeatedEnds | null = null;
  const keyWriters: KeysWriter[] = [];
  try {
    // Pass 1: n-gram occurrences and layout per chunk.
    clock.start("ngrams");
    const places = new InputPlaces(inputs);
    const chunkTokens: number[] = [];
    let tokens = 0;
    const freeOcc: ArrayBuffer[] = [];
    // Line of each chunk's start in its file, known once the chunks ahead are counted.
    let fileLine = 1;
    const p1 = reporter.progress("n-grams", "tokens");
    const consumeChunk = ({ chunk, r }: Scanned) => {
      if (chunk.firstLine !== undefined) fileLine = chunk.firstLine;
      else if (chunk.fileStart) fileLine = 1;
      if ("problem" in r) throw problemError(chunk.file, fileLine, r.problem);
      fileLine += r.lines;
      store.add(chunk.index, r.bytes ?? chunk.bytes, r);
      // Written to the run files by now: the buffer can take a later chunk's occurrences.
      if (store.external && r.occ.buffer instanceof ArrayBuffer) freeOcc.push(r.occ.buffer);
      chunkTokens[chunk.index] = r.tokens;
      totals.lines += r.lines;
      totals.ngrams += r.occ.length / OCC_WORDS;
      warnings.emptyLine += r.warnings.emptyLine;
      warnings.tagOutsideDoc += r.warnings.tagOutsideDoc;
      tokens += r.tokens;
      p1.update(tokens);
    };
    async function* scanTasks(): AsyncGenerator<StepTask<Scanned>> {
      for await (const chunk of corpusChunks(inputs, places, exec.chunkBytes ?? DEFAULT_CHUNK_BYTES, readLimits(exec.maxDocBytes, exec.oversize, options.docTag), skipped)) {
        totals.chunks++;
        yield ngramsTask(pool, chunk, options, steps, () => !store.external, () => freeOcc.pop() ?? null);
      }
    }
    await consumeTasks(steps, scanTasks(), consumeChunk, pool.limit);
    const skipWarning = skippedDocumentsWarning(skipped, "left out of the output");
    if (skipWarning !== undefined) reporter.info(skipWarning);
    store.finishRuns();
    p1.finish();
    clock.stop("ngrams");

    // Pass 2: repeated occurrences per bucket, buckets too large for one table split first.
    clock.start("repeats");
    const maxKeys = store.external ? tableKeys(memory, exec.workers) : Infinity;
    const leaves = await splitBuckets(pool, store.buckets(), maxKeys);
    totals.tables = leaves.length;
    // The run's own index holds all its n-grams; an updated index gains those it lacked.
    const own = run.workdir === undefined ? null : new IndexUpdate(run.workdir, newIndex(PARAGRAPHS_METHOD, keyOptions(options)), inputs, digests, 0);
    const updated = run.update === true ? indices[0] : null;
    const appended = updated === null ? null : new IndexUpdate(updated.dir, updated.manifest, inputs, digests, 0);
    const allOut = own === null ? null : await KeysWriter.open(own, 1);
    const freshOut = appended === null || updated === null ? null : await KeysWriter.open(appended, updated.manifest.generation);
    keyWriters.push(...[allOut, freshOut].filter((w) => w !== null));
    const known = indices.flatMap((index) => index.segments);
    repeats = new RepeatedEnds(dir, chunkTokens, store.external);
    const counts = repeats;
    const p2 = reporter.progress("repeats", "buckets", leaves.length);
    let bucketsDone = 0;
    type Found = { range: KeyRange; result: RepeatsResult };
    // In memory mode the tables are small and many: a marker each would cost more than they do.
    const perTask = store.external ? 1 : Math.ceil(leaves.length / MEMORY_MODE_REPEATS_TASKS);
    const groups = Array.from({ length: Math.ceil(leaves.length / perTask) }, (_, g) => leaves.slice(g * perTask, (g + 1) * perTask));
    const bucketTasks = groups.map(
      (group): StepTask<Found[]> => ({
        marker: repeatsMarker(group[0].range, group.length),
        start: async () => {
          const found: Promise<Found>[] = [];
          for (const source of group) {
            const overlapping = known.filter((segment) => overlaps(segment.range, source.range));
            const task: RepeatsTask = { source, expected: Math.min(source.count, maxKeys), known: overlapping, all: allOut !== null, fresh: freshOut !== null };
            const { result } = await pool.submit<RepeatsResult>("repeats", task);
            found.push(result.then(async (r) => (steps !== null && (await saveRepeats(steps, source.range, r)), { range: source.range, result: r })));
          }
          return { result: Promise.all(found) };
        },
        load: async () => group.map((source) => ({ range: source.range, result: loadRepeats(steps as string, source.range) })),
        stats: (found) => ({ words: found.reduce((n, f) => n + f.result.repeats.length, 0) }),
      }),
    );
    await consumeTasks(
      steps,
      bucketTasks,
      async (found) => {
        for (const { range, result } of found) {
          counts.add(result.repeats);
          if (result.all !== undefined) await allOut?.add(range, result.all);
          if (result.fresh !== undefined) await freshOut?.add(range, result.fresh);
          p2.update(++bucketsDone);
        }
      },
      pool.limit,
    );
    await allOut?.finish();
    await freshOut?.finish();
    if (appended !== null) killPoint("paragraphs-keys-written");
    counts.finish();
    store.dropOccurrences();
    p2.finish();
    clock.stop("repeats");

    // Pass 3: decisions and output, in corpus order; one task (its marker: the output is in place).
    clock.start("render");
    const render = async (): Promise<RenderStats> => {
      places.checkUnchanged();
      out = await openOutput(output);
      const written = out;
      const stats: RenderStats = { docsIn: 0, docsOut: 0, paragraphsIn: 0, paragraphsOut: 0, tokensIn: 0, tokensOut: 0, duplicates: 0, stubs: 0 };
      const p3 = reporter.progress("output", "chunks", totals.chunks);
      let rendered = 0;
      // Output buffers go back to the workers once written, so their number stays fixed.
      const free: ArrayBuffer[] = [];
      const pass3 = new InOrder<Rendered, null>(pool, "render", async (r) => {
        await written.write(r.bytes, () => free.push(r.bytes.buffer as ArrayBuffer));
        for (const key of Object.keys(stats) as (keyof RenderStats)[]) stats[key] += r.stats[key];
        p3.update(++rendered);
      });
      for (let c = 0; c < totals.chunks; c++) {
        const reuse = free.pop() ?? null;
        const task: RenderTask = { ...store.take(c), repeated: counts.take(c), count: options.count, ngram: options.ngram, threshold: options.threshold, maxStub: options.maxStub, mark: options.mark, reuse };
        // The coordinator is done with these buffers: moved, not copied.
        const owned = [task.bytes, task.layout, task.repeated].flatMap((b) => (b instanceof Uint8Array || b instanceof Uint32Array) && b.buffer instanceof ArrayBuffer ? [b.buffer] : []);
        await pass3.submit(task, null, reuse === null ? owned : [...owned, reuse]);
      }
      await pass3.drain();
      p3.finish();
      if (stats.docsIn === 0) throw new VertdupError(`${inputs.join(", ")}: the corpus has no documents`);
      await written.commit();
      return stats;
    };
    const [stats] = await runTasks(steps, [
      {
        marker: RENDER_MARKER,
        start: async () => ({ result: render() }),
        load: async () => (await readMarker<RenderStats>(steps as string, RENDER_MARKER)) as RenderStats,
        stats: (s: RenderStats) => s,
      },
    ]);
    clock.stop("render");
    if (own !== null) {
      own.countDocuments(stats.docsIn);
      await own.commit();
    }
    if (appended !== null) {
      killPoint("paragraphs-before-commit");
      appended.countDocuments(stats.docsIn);
      await appended.commit();
    }

    const report: ParagraphReport = {
      version: packageVersion(),
      inputs: [...inputs],
      output,
      against: [...(run.against ?? [])],
      options,
      mode: store.external ? "external" : "memory",
      inProcess,
      counts: { ...stats, ...totals },
      warnings: skipped.documents > 0 ? { ...warnings, oversizeSkipped: skipped } : warnings,
      phases: clock.timings(),
    };
    if (run.reportPath !== undefined) await writeAtomic(run.reportPath, `${JSON.stringify(report, null, 2)}\n`);
    success = true;
    return report;
  } catch (err) {
    await (out as OutputFile | null)?.abort();
    for (const w of keyWriters) await w.abort();
    throw err;
  } finally {
    repeats?.finish();
    store.close();
    await pool.close();
    await dirs.release(success);
    await indexLock?.release();
  }
}
