import type { TaskPool } from "../executor/in-process-pool.js";
import type { ParagraphTasks } from "./paragraphs-entry.js";
import { markersDone, type StepProgress } from "../executor/pipeline.js";
import type { Reporter } from "../executor/progress.js";
import { consumeTasks, type StepTask } from "../executor/tasks.js";
import type { IndexUpdate } from "../workdir/index-store.js";
import { readMarker, writeMarker } from "../workdir/layout.js";
import { killPoint } from "../util/kill-point.js";
import type { RepeatsResult, RepeatsTask } from "./bucket-task.js";
import { KeysWriter, overlaps, type KeyRange, type KeySegment } from "./ngram-index.js";
import type { Scan } from "./ngrams-step.js";
import { RepeatedEnds } from "./repeated-ends.js";
import { splitBuckets, tableKeys } from "./split-plan.js";
import { loadRepeats, repeatsMarker, REPEATS_TASKS, saveRepeats } from "./step-files.js";

/** Tasks the repeats step groups the bucket tables of memory mode into (one marker each). */
const MEMORY_MODE_REPEATS_TASKS = 16;

/** The marker of the repeats step: every table's repeats saved, the indices' keys written. */
const REPEATS_MARKER = "paragraphs-repeats";

/** What the repeats step's marker records: enough to read its results back without splitting again. */
interface RepeatsDone {
  external: boolean;
  /** Its tasks (the unit of `slurm status`). */
  tasks: number;
  /** The bucket tables' key ranges, in order. */
  ranges: KeyRange[];
}

/** Which n-grams were repeated, for the output step, and what the report says of the step. */
export interface Repeats {
  ends: RepeatedEnds;
  /** Bucket tables: more than the 256 buckets when some were split. */
  tables: number;
  /** External mode: the n-gram occurrences went to disk (the report's `mode`). */
  external: boolean;
}

/** An index the repeats step writes a keys file into: the update that lists it, and the generation it adds. */
export interface KeysTarget {
  update: IndexUpdate;
  generation: number;
}

/** What the repeats step is given besides the corpus's n-grams (the scan) and the pool. */
export interface RepeatsSetup {
  /** Where the repeated n-grams of external mode go (the process's scratch folder). */
  scratch: string;
  /** `--memory`: what the bucket tables of external mode share. */
  memory: number;
  workers: number;
  /** The work directory where each task's result is saved with its marker; null: nothing saved. */
  saves: string | null;
  /** The key segments of the `--against` indices: their n-grams count as seen before the inputs'. */
  known: readonly KeySegment[];
  /** The run's own index (-w), which gets every key, and the `--update` index, which gets those it lacks. */
  all: KeysTarget | null;
  fresh: KeysTarget | null;
}

/**
 * Pass 2: per bucket table, in corpus order, the occurrences whose key was seen before (in
 * an index, or earlier in the corpus), set as bits per chunk; buckets too large for one table
 * are split first. Each task — a table in external mode, a group of tables in memory mode —
 * is resumable: with `saves` its result is saved with its marker, and a finished one is read
 * back. The tables' sorted keys go to the keys files of the indices, committed after the output.
 */
export async function findRepeats(scan: Scan, s: RepeatsSetup, pool: TaskPool<ParagraphTasks>, reporter: Reporter): Promise<Repeats> {
  const { store } = scan;
  const external = store.external;
  const maxKeys = external ? tableKeys(s.memory, s.workers) : Infinity;
  const leaves = await splitBuckets(pool, store.buckets(), maxKeys);
  const ends = new RepeatedEnds(s.scratch, scan.chunkTokens, external);
  const writers: KeysWriter[] = [];
  try {
    const allOut = s.all === null ? null : await KeysWriter.open(s.all.update, s.all.generation);
    if (allOut !== null) writers.push(allOut);
    const freshOut = s.fresh === null ? null : await KeysWriter.open(s.fresh.update, s.fresh.generation);
    if (freshOut !== null) writers.push(freshOut);
    const progress = reporter.progress("repeats", "buckets", leaves.length);
    let bucketsDone = 0;
    type Found = { range: KeyRange; result: RepeatsResult };
    // In memory mode the tables are small and many: a marker each would cost more than they do.
    const perTask = external ? 1 : Math.ceil(leaves.length / MEMORY_MODE_REPEATS_TASKS);
    const groups = Array.from({ length: Math.ceil(leaves.length / perTask) }, (_, g) => leaves.slice(g * perTask, (g + 1) * perTask));
    const tasks = groups.map(
      (group): StepTask<Found[]> => ({
        marker: repeatsMarker(group[0].range, group.length),
        start: async () => {
          const found: Promise<Found>[] = [];
          for (const source of group) {
            const known = s.known.filter((segment) => overlaps(segment.range, source.range));
            const task: RepeatsTask = { source, expected: Math.min(source.count, maxKeys), known, all: allOut !== null, fresh: freshOut !== null };
            const { result } = await pool.submit("repeats", task);
            found.push(result.then(async (r) => (s.saves !== null && (await saveRepeats(s.saves, source.range, r)), { range: source.range, result: r })));
          }
          return { result: Promise.all(found) };
        },
        load: async () => group.map((source) => ({ range: source.range, result: loadRepeats(s.saves as string, source.range) })),
        stats: (found) => ({ words: found.reduce((n, f) => n + f.result.repeats.length, 0) }),
      }),
    );
    await consumeTasks(
      s.saves,
      tasks,
      async (found) => {
        for (const { range, result } of found) {
          ends.add(result.repeats);
          if (result.all !== undefined) await allOut?.add(range, result.all);
          if (result.fresh !== undefined) await freshOut?.add(range, result.fresh);
          progress.update(++bucketsDone);
        }
      },
      pool.limit,
    );
    for (const w of writers) await w.finish();
    if (freshOut !== null) killPoint("paragraphs-keys-written");
    ends.finish();
    store.dropOccurrences();
    progress.finish();
    if (s.saves !== null) await writeMarker(s.saves, REPEATS_MARKER, { external, tasks: tasks.length, ranges: leaves.map((l) => l.range) } satisfies RepeatsDone);
    return { ends, tables: leaves.length, external };
  } catch (err) {
    for (const w of writers) await w.abort();
    ends.finish();
    throw err;
  }
}

/** The result of a finished repeats step, read back from the work directory (a later job, a resumed run). */
export async function readRepeats(workdir: string, scan: Scan, scratch: string, reporter: Reporter): Promise<Repeats> {
  const done = (await readMarker<RepeatsDone>(workdir, REPEATS_MARKER)) as RepeatsDone;
  const ends = new RepeatedEnds(scratch, scan.chunkTokens, done.external);
  const progress = reporter.progress("repeats", "buckets", done.ranges.length);
  try {
    for (const [k, range] of done.ranges.entries()) {
      ends.add(loadRepeats(workdir, range).repeats);
      progress.update(k + 1);
    }
  } finally {
    ends.finish();
  }
  progress.finish();
  return { ends, tables: done.ranges.length, external: done.external };
}

/** The repeats step's progress in tasks, whose number is known once it is done. */
export async function repeatsProgress(workdir: string): Promise<StepProgress> {
  const done = await readMarker<RepeatsDone>(workdir, REPEATS_MARKER);
  return done === undefined ? markersDone(workdir, REPEATS_TASKS, undefined) : { done: done.tasks, total: done.tasks };
}
