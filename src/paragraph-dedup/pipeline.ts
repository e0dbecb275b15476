import { existsSync, rmSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { openInput } from "../corpus/open-input.js";
import { packageVersion } from "../util/package-info.js";
import type { ExecutionOptions } from "../core/options.js";
import { DEFAULT_MEMORY, type ParagraphOptions } from "../core/paragraph-options.js";
import { VertdupError } from "../core/errors.js";
import { InProcessPool, type TaskPool } from "../executor/in-process-pool.js";
import { markerDone, markersDone, runLocally, type Pipeline, type Step, type StepContext, type StepProgress } from "../executor/pipeline.js";
import { stderrReporter } from "../executor/progress.js";
import { PhaseClock } from "../executor/timing.js";
import { atExit } from "../util/exit-cleanup.js";
import { killPoint } from "../util/kill-point.js";
import { checkedDigests, digestInputs } from "../workdir/batch-digest.js";
import { IndexUpdate, newIndex, removeIndex } from "../workdir/index-store.js";
import { markerFile, readMarker, writeMarker } from "../workdir/layout.js";
import { adoptRunConfig, chunkBytesFor, CONFIG_FILE, fingerprint, readRunConfig, type RunConfig } from "../workdir/run-config.js";
import { useWorkdir } from "../workdir/use.js";
import { CorpusStore } from "./corpus-store.js";
import { keyOptions, listKeys, PARAGRAPHS_METHOD, type SavedIndex } from "./ngram-index.js";
import { chunkCountFile, ngramsStep, scanCorpus, type NgramInput, type ParagraphConfig, type Scan } from "./ngrams-step.js";
import { outputStep, RENDER_MARKER, type ParagraphReport } from "./output-step.js";
import { findRepeats, readRepeats, repeatsProgress, type KeysTarget, type Repeats } from "./repeats-step.js";
import { againstKey, checkJob, lockIndices, runConfig } from "./start.js";
import { smallInputs } from "../corpus/open-input.js";
import { NGRAMS_TASKS, removeTaskFiles, STEP_FOLDER } from "./step-files.js";
import { OnionDedup } from "./onion-sequential.js";
import { LineProblem, problemError } from "./line-problem.js";
import { badLine } from "../corpus/vertical.js";
import { openOutput } from "../output/output-file.js";
import { writeAtomic } from "../util/atomic.js";
import { PARAGRAPHS_WORKERS, type ParagraphTasks } from "./paragraphs-entry.js";
import { readJsonFile, WORKDIR_ADVICE } from "../util/json-file.js";

/**
 * Everything a paragraph job is given (`vertdup paragraphs`, `slurm paragraphs`): stored in
 * the work directory at a Slurm submission, so that every job builds the same pipeline.
 */
export interface ParagraphSettings {
  command: "paragraphs";
  inputs: string[];
  /** Output corpus file (- for standard output). */
  output: string;
  options: ParagraphOptions;
  reportPath?: string;
  /** `--memory`: what the n-gram step holds before going external, and external mode's bucket tables share. */
  memory: number;
  /** Saved indices (`--against`) whose n-grams count as seen before the inputs'. */
  against: string[];
  /** `--update`: append the inputs' n-grams to the one `against` index once the output is written. */
  update: boolean;
  /** `--resume`: keep what an interrupted run in the work directory finished (a Slurm submission always does). */
  resume: boolean;
  /** The work directory is one given (-w): the steps' results are saved there, and it is left as an index of the inputs. */
  saveIndex: boolean;
  /** Run the passes in this thread (true) or on the worker pool (false); by default by the inputs' size (IN_PROCESS_BELOW). */
  inProcess?: boolean;
  /** Array size of the n-gram step on Slurm. */
  tasks: number;
  exec: Pick<NgramInput, "chunkBytes" | "maxDocBytes" | "oversize">;
}

/** What the library call `paragraphs` is given besides the inputs, output, options and execution options. */
export interface ParagraphRun {
  memory?: number;
  /** Where the report goes; none when undefined. */
  reportPath?: string;
  inProcess?: boolean;
  /** Work directory (`-w`): kept, and left as an index of the inputs' n-grams when the run completes; a temporary one otherwise. */
  workdir?: string;
  against?: readonly string[];
  update?: boolean;
  resume?: boolean;
}

/** The settings of a paragraph job of `run` (the Slurm submission gives `tasks`). */
export function paragraphSettings(inputs: readonly string[], output: string, options: ParagraphOptions, exec: Omit<ExecutionOptions, "workers">, run: ParagraphRun, tasks = 1): ParagraphSettings {
  if (options.count === "tokens") throw new VertdupError("--count tokens (onion 1.2's rule) runs sequentially in one process (vertdup paragraphs without -w): the job pipeline takes --count tokens-any or ngrams");
  return {
    command: "paragraphs",
    inputs: [...inputs],
    output,
    options,
    ...(run.reportPath === undefined ? {} : { reportPath: run.reportPath }),
    memory: run.memory ?? DEFAULT_MEMORY,
    against: [...(run.against ?? [])],
    update: run.update === true,
    resume: run.resume === true,
    saveIndex: run.workdir !== undefined,
    ...(run.inProcess === undefined ? {} : { inProcess: run.inProcess }),
    tasks,
    exec: { chunkBytes: chunkBytesFor(exec.chunkBytes, run.workdir, run.resume === true), maxDocBytes: exec.maxDocBytes, oversize: exec.oversize },
  };
}

/** Folder of the passes' transient files (bucket runs, spool, splits, repeated n-grams) in a work directory; each process's own. */
const SCRATCH = "paragraphs";
/** The markers of the steps that leave the indices: the work directory's own (-w), and the one `--update` appends to. */
const INDEX_MARKER = "paragraphs-index";
const APPEND_MARKER = "paragraphs-append";

/** A pipeline of the paragraph job, with the report of its run for a caller in the same process. */
export interface ParagraphPipeline extends Pipeline {
  /** The report the output step made in this process, or recorded in its marker. */
  report(): Promise<ParagraphReport>;
}

/** Chunks of the corpus, once an n-gram task has read it through. */
async function chunkCount(workdir: string): Promise<number | undefined> {
  const path = chunkCountFile(workdir);
  return existsSync(path) ? (await readJsonFile<{ chunks: number }>(path, WORKDIR_ADVICE)).chunks : undefined;
}

const warn = (m: string) => process.stderr.write(`vertdup: warning: ${m}\n`);

/**
 * `vertdup paragraphs`, onion-style removal (or marking) of near-duplicate units, as steps
 * over chunks split before document tags, each on the pool (or in this thread for small
 * inputs). The result equals the sequential definition whatever the workers, chunk size and mode.
 *
 * ```
 * ngrams → repeats → output → index? → append?
 * ```
 * - ngrams: every chunk's n-gram occurrences, grouped into buckets by key, and its layout
 *   (a Slurm array of slices, each saving its chunks' results for the next job);
 * - repeats: per bucket table, in corpus order, the occurrences whose key was already seen
 *   (in an `--against` index, or earlier: first occurrence wins), as bits per chunk; the
 *   tables' keys go to the indices' keys files;
 * - output: per chunk, the onion decision and the output lines, written in order; the report;
 * - index (-w): the work directory's index committed, the tasks' saved results removed;
 * - append (--update): the `--against` index's new batch committed.
 *
 * With a work directory (-w, Slurm) every task saves its result with its marker, so that a
 * step in another process, or a resumed run, reads back what an earlier one finished; a step
 * of this process hands its result to the next in memory. The `--against` indices are held
 * (locked) by each process from its first use of them to its end: a local run from its start
 * to the commit.
 */
export function paragraphPipeline(workdir: string, s: ParagraphSettings): ParagraphPipeline {
  const saves = s.saveIndex ? workdir : null;
  const input: NgramInput = { inputs: s.inputs, options: s.options, ...s.exec };
  let made: ParagraphReport | undefined;

  // The report's phases: what each step took in this process, to run or to read back.
  const clock = (c: StepContext) => c.shared("clock", async () => new PhaseClock());
  const phase = async <T>(c: StepContext, name: string, work: () => Promise<T>): Promise<T> => {
    const time = await clock(c);
    time.start(name);
    const result = await work();
    time.stop(name);
    return result;
  };
  const inProcess = (c: StepContext) => c.shared("in-process", async () => s.inProcess ?? (await smallInputs(s.inputs)));
  // Small inputs run in this thread: no pool to start (its modules, piscina, are not even loaded).
  const pool = (c: StepContext) => c.shared("pool", async (): Promise<TaskPool<ParagraphTasks>> => ((await inProcess(c)) ? new InProcessPool(PARAGRAPHS_WORKERS.tasks) : c.pool(PARAGRAPHS_WORKERS)));
  const scratch = (c: StepContext) =>
    c.shared(
      "scratch",
      async () => {
        const path = join(workdir, SCRATCH);
        await rm(path, { recursive: true, force: true });
        await mkdir(path);
        return { path, forget: atExit(() => rmSync(path, { recursive: true, force: true, maxRetries: 3 })) };
      },
      async ({ path, forget }) => {
        await rm(path, { recursive: true, force: true });
        forget();
      },
    );
  // The n-gram step's result: computed by it, or read back from its saved results (without
  // the occurrences, once the repeats are found).
  const scan = (c: StepContext, quiet: boolean, occurrences = true) =>
    c.shared(
      "scan",
      async (): Promise<Scan> => {
        const store = new CorpusStore((await scratch(c)).path, s.memory);
        const work = await pool(c);
        try {
          return await phase(c, "ngrams", () => scanCorpus(input, store, saves, work, stderrReporter(quiet), occurrences));
        } catch (err) {
          store.close();
          throw err;
        }
      },
      (result) => result.store.close(),
    );
  const held = (c: StepContext) => c.shared("indices", () => lockIndices(s.against, s.options), (h) => h.lock.release());
  // The indices as a later step finds them: refused if one was updated since the run started (its configuration names their generations).
  const indices = (c: StepContext) =>
    c.shared("indices-unchanged", async (): Promise<SavedIndex[]> => {
      const { indices: now } = await held(c);
      if (saves === null) return now;
      const recorded = ((await readRunConfig(workdir)) as unknown as RunConfig<ParagraphConfig>).prepare.against;
      if (recorded !== againstKey(now)) throw new VertdupError(`${workdir}: refusing to resume: the work directory was made with other --against (${recorded} there, ${againstKey(now)} now)`);
      return now;
    });
  const digests = (c: StepContext) => c.shared("digests", () => digestInputs(s.inputs));
  // The indices the repeats step writes keys into, with those files listed: by it, or by the step that commits them.
  const keysTarget = async (update: IndexUpdate, generation: number): Promise<KeysTarget> => {
    await listKeys(update, generation);
    return { update, generation };
  };
  const ownIndex = (c: StepContext) => c.shared("own-index", async () => keysTarget(new IndexUpdate(workdir, newIndex(PARAGRAPHS_METHOD, keyOptions(s.options)), s.inputs, await digests(c), 0), 1));
  const updatedIndex = (c: StepContext) =>
    c.shared("updated-index", async () => {
      const [index] = await indices(c);
      return keysTarget(new IndexUpdate(index.dir, index.manifest, s.inputs, await digests(c), 0), index.manifest.generation);
    });
  // The repeats step's result: found by it, or read back from its saved results (by the output step of another process).
  const repeats = (c: StepContext, quiet: boolean, find: boolean) =>
    c.shared("repeats", async (): Promise<Repeats> => {
      const folder = (await scratch(c)).path;
      if (!find) {
        const scanned = await scan(c, quiet, false);
        return phase(c, "repeats", () => readRepeats(workdir, scanned, folder, stderrReporter(quiet)));
      }
      // The indices' updates (the inputs' digests read) before the n-grams fill memory.
      const setup = {
        scratch: folder,
        memory: s.memory,
        workers: c.workers,
        saves,
        known: s.against.length === 0 ? [] : (await indices(c)).flatMap((index) => index.segments),
        all: s.saveIndex ? await ownIndex(c) : null,
        fresh: s.update ? await updatedIndex(c) : null,
      };
      const scanned = await scan(c, quiet);
      const work = await pool(c);
      return phase(c, "repeats", () => findRepeats(scanned, setup, work, stderrReporter(quiet)));
    });
  // The output step's report: made in this process, or recorded in its marker.
  const reportOf = async () => made ?? ((await readMarker<ParagraphReport>(workdir, RENDER_MARKER)) as ParagraphReport);

  const steps: Step[] = [
    {
      name: "ngrams",
      arraySize: s.tasks,
      pools: [PARAGRAPHS_WORKERS],
      run: async ({ slice, quiet, context }) => {
        // A slice of a Slurm array saves its chunks' n-grams for the repeats job; the whole
        // corpus in one process is kept for the next steps too. The inputs' digests, which the
        // index records, are read first: read at the repeats step, with the n-grams in memory,
        // their buffers raised the peak memory by some 40 MiB (200,000 documents).
        if (slice.count > 1) return ngramsStep(workdir, input, slice, await pool(context), stderrReporter(quiet));
        if (s.saveIndex) await digests(context);
        await scan(context, quiet);
      },
      progress: async (): Promise<StepProgress> => {
        // A finished run has removed the chunks' markers: its report counts them.
        const finished = await readMarker<ParagraphReport>(workdir, RENDER_MARKER);
        return finished === undefined ? markersDone(workdir, NGRAMS_TASKS, await chunkCount(workdir)) : { done: finished.counts.chunks, total: finished.counts.chunks };
      },
    },
    {
      name: "repeats",
      pools: [PARAGRAPHS_WORKERS],
      run: async ({ quiet, context }) => {
        await repeats(context, quiet, true);
      },
      progress: () => repeatsProgress(workdir),
    },
    {
      name: "output",
      pools: [PARAGRAPHS_WORKERS],
      run: async ({ quiet, context }) => {
        const found = await repeats(context, quiet, false);
        const setup = { inputs: s.inputs, output: s.output, reportPath: s.reportPath, against: s.against, options: s.options, inProcess: await inProcess(context) };
        made = await outputStep(saves, setup, await scan(context, quiet, false), found, await clock(context), await pool(context), stderrReporter(quiet));
      },
      progress: async () => markerDone(workdir, RENDER_MARKER),
    },
  ];
  if (s.saveIndex) {
    steps.push({
      name: "index",
      run: async ({ context }) => {
        const { update } = await ownIndex(context);
        const documents = (await reportOf()).counts.docsIn;
        update.countDocuments(documents);
        await update.commit();
        await writeMarker(workdir, INDEX_MARKER, { documents });
        // The work directory is an index now: what the tasks saved to resume goes, and the
        // scratch folder of a process killed after the output step (this process's goes at its end).
        await removeTaskFiles(workdir);
        await rm(join(workdir, SCRATCH), { recursive: true, force: true });
      },
      progress: async () => markerDone(workdir, INDEX_MARKER),
    });
  }
  if (s.update) {
    steps.push({
      name: "append",
      run: async ({ context }) => {
        const { update } = await updatedIndex(context);
        killPoint("paragraphs-before-commit");
        update.countDocuments((await reportOf()).counts.docsIn);
        await update.commit();
        if (saves !== null) await writeMarker(saves, APPEND_MARKER, { index: update.dir });
      },
      progress: async () => markerDone(workdir, APPEND_MARKER),
    });
  }
  return {
    workdir,
    steps,
    report: reportOf,
    start: async (context) => {
      let now: SavedIndex[] = [];
      if (s.against.length > 0) {
        now = (await held(context)).indices;
        // Checked before any work: an input an index holds already is refused (or, without --update, warned of).
        await context.shared("digests", () => checkedDigests(now, s.inputs, s.update, warn));
      }
      if (saves === null) return;
      const config = await runConfig(input, s.output, now);
      const path = join(workdir, CONFIG_FILE);
      const recorded = existsSync(path) ? ((await readRunConfig(workdir)) as unknown as RunConfig<ParagraphConfig>) : undefined;
      if (s.resume && recorded !== undefined && (recorded.prepare as Partial<ParagraphConfig>).command !== "paragraphs") {
        throw new VertdupError(`${workdir}: refusing to resume: the work directory was made by another command than vertdup paragraphs`);
      }
      // A finished run left an index and nothing to resume: one with other options, or whose
      // output is gone, starts over.
      const finished = recorded !== undefined && existsSync(markerFile(workdir, INDEX_MARKER));
      const over = finished && (fingerprint(recorded) !== fingerprint(config) || !existsSync(s.output));
      if (!(await adoptRunConfig(workdir, config, s.resume && !over))) await startOver(workdir);
    },
  };
}

/** Clears what an earlier run left in the work directory: its index (the run makes a new one), markers and saved results. */
async function startOver(workdir: string): Promise<void> {
  await removeIndex(workdir);
  for (const folder of ["markers", STEP_FOLDER]) {
    await rm(join(workdir, folder), { recursive: true, force: true });
    await mkdir(join(workdir, folder));
  }
}

/**
 * `vertdup paragraphs` (and the library call): the pipeline run in this process, in the work
 * directory `run.workdir` (claimed and locked, kept) or a temporary one. Returns the report.
 */
export async function paragraphs(inputs: readonly string[], output: string, options: ParagraphOptions, exec: ExecutionOptions, run: ParagraphRun = {}): Promise<ParagraphReport> {
  if (options.count === "tokens") return onionRun(inputs, output, options, run);
  const s = paragraphSettings(inputs, output, options, exec, run);
  await checkJob(s, run.workdir, s.resume);
  return useWorkdir(
    run.workdir,
    exec.tmpDir,
    async (workdir) => {
      const pipeline = paragraphPipeline(workdir, s);
      await runLocally(pipeline, exec.workers, exec.quiet === true);
      return pipeline.report();
    },
    s.update ? "run the batch again, without --resume" : undefined,
  );
}

/**
 * `--count tokens` (onion 1.2's kept-paragraph rule, onion-sequential.ts): one sequential pass
 * in this process over the inputs in order, a document at a time; the output is put in place
 * once complete. No work directory, saved index or --against (the rule needs every earlier
 * decision; an index of kept n-grams is not built).
 */
async function onionRun(inputs: readonly string[], output: string, options: ParagraphOptions, run: ParagraphRun): Promise<ParagraphReport> {
  if (run.workdir !== undefined || (run.against ?? []).length > 0 || run.update === true || run.resume === true) {
    throw new VertdupError("--count tokens (onion 1.2's sequential rule) takes no -w, --against, --update or --resume: use --count tokens-any or ngrams");
  }
  if (options.normalize !== "none") throw new VertdupError(`--count tokens (onion 1.2 line for line) takes --normalize none only (onion hashes its tokens as they are), not ${options.normalize}: use --count tokens-any or ngrams`);
  const clock = new PhaseClock();
  clock.start("onion");
  const out = await openOutput(output);
  try {
    let pending: string[] = [];
    let pendingChars = 0;
    const dedup: OnionDedup = new OnionDedup(options, (t) => {
      pending.push(t);
      pendingChars += t.length;
    });
    const flush = async () => {
      if (pending.length === 0) return;
      const bytes = Buffer.from(pending.join(""), "utf8");
      pending = [];
      pendingChars = 0;
      await out.write(bytes);
    };
    for (const input of inputs) {
      const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
      let rest = "";
      let lineNo = 0;
      const line = (text: string) => {
        lineNo++;
        // A byte-order mark is not part of the first line; it is written back as it was.
        if (lineNo === 1 && text.startsWith("\uFEFF")) dedup.line(text.slice(1), lineNo, text);
        else dedup.line(text, lineNo);
      };
      try {
        for await (const chunk of openInput(input)) {
          let text: string;
          try {
            text = rest + decoder.decode(chunk as Buffer, { stream: true });
          } catch {
            throw new LineProblem(lineNo + 1, badLine.utf8);
          }
          let from = 0;
          for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", from)) {
            line(text.slice(from, nl));
            from = nl + 1;
          }
          rest = text.slice(from);
          if (pendingChars >= 1 << 20) await flush();
        }
        try {
          rest += decoder.decode();
        } catch {
          throw new LineProblem(lineNo + 1, badLine.utf8);
        }
        // A file without a final newline: its last line still ends there.
        if (rest.length > 0) line(rest);
        dedup.endFile();
      } catch (err) {
        if (err instanceof LineProblem) throw problemError(input, 1, { line: err.line, text: err.text });
        throw err;
      }
    }
    await flush();
    if (dedup.stats.docsIn === 0) throw new VertdupError(`${inputs.join(", ")}: the corpus has no documents`);
    await out.commit();
    clock.stop("onion");
    const report: ParagraphReport = {
      version: packageVersion(),
      inputs: [...inputs],
      output,
      against: [],
      options,
      mode: "memory",
      inProcess: true,
      counts: { ...dedup.stats, chunks: 0, lines: 0, ngrams: 0, tables: 0 },
      warnings: dedup.warnings,
      phases: clock.timings(),
    };
    if (run.reportPath !== undefined) await writeAtomic(run.reportPath, `${JSON.stringify(report, null, 2)}\n`);
    return report;
  } catch (err) {
    await out.abort();
    throw err;
  }
}
