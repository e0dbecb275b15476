import { existsSync } from "node:fs";
import { killPoint } from "../util/kill-point.js";
import { syncFiles } from "../util/atomic.js";
import { markerFile, markersDurable, readMarker, writeMarker } from "../workdir/layout.js";

/**
 * A task of a step: the name of its completion marker, its work (which writes the task's
 * files) and how to read back what the task made when an earlier run finished it.
 */
export interface StepTask<R> {
  marker: string;
  /** Starts the work; resolves once it is under way (a pool place taken) with its completion. */
  start(): Promise<{ result: Promise<R> }>;
  /** The result of the task as its files hold it (the task is done: its marker is in place). */
  load(): Promise<R>;
  /** What the marker records about a result (JSON). */
  stats(result: R): unknown;
  /**
   * Files the work puts in place without fsync (`writeAtomicGroup` with `durable` false):
   * the executor makes them durable, together with other tasks' (`syncFiles`), before it
   * writes the task's marker.
   */
  unsynced?: readonly string[];
}

/** A batch of tasks' unsynced files waits for at most this many tasks, or this long after its first. */
const BATCH_TASKS = 16;
const BATCH_MS = 50;

/**
 * The markers of tasks whose files are not durable yet, written in batches: a batch's files
 * fsynced together (one round of journal commits and one directory fsync for up to
 * BATCH_TASKS tasks instead of one per task), then its markers. Batches go one at a time.
 */
class MarkerBatch {
  private queue: { files: readonly string[]; mark: () => Promise<void>; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private chain: Promise<void> = Promise.resolve();
  private ending = false;

  /** Resolves once `files` are durable and `mark` has written the task's marker. */
  add(files: readonly string[], mark: () => Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ files, mark, resolve, reject });
      if (this.ending || this.queue.length >= BATCH_TASKS) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), BATCH_MS);
    });
  }

  /** The step's last tasks: each flushed as it comes, without waiting for others. */
  end(): void {
    this.ending = true;
    this.flush();
  }

  private flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    this.chain = this.chain.then(async () => {
      try {
        await syncFiles(batch.flatMap((t) => t.files));
      } catch (err) {
        for (const t of batch) t.reject(err);
        return;
      }
      await Promise.all(batch.map((t) => t.mark().then(t.resolve, t.reject)));
    });
  }
}

/**
 * The executor of one step's tasks, given one at a time (by a step that learns its tasks
 * while it runs, as the count step does while cutting the corpus): a task whose marker is in
 * place is not run again but loaded (resume); every other one leaves its marker once its
 * files are in place. Only the executor writes task markers, always on the coordinator,
 * after the task's worker has returned and its files are durable (util/atomic.ts): made so
 * by the worker, or by the executor for the files a task names `unsynced`.
 */
export class TaskRunner<R> {
  private readonly pending: Promise<R>[] = [];
  private readonly batch = new MarkerBatch();

  /**
   * `workdir` null: a run that cannot be resumed, no marker is read or written.
   * `markersAtEnd`: the tasks' markers are made durable together when `results` resolves
   * (one directory fsync, not one per task): for a step that acts on no task's completion
   * before its end, so that a marker lost in a crash before then only reruns its task.
   */
  constructor(
    private readonly workdir: string | null,
    private readonly markersAtEnd = false,
  ) {}

  /**
   * Runs or loads a task; resolves once it is under way, as its `start` does, with its
   * completion (its marker in place) for a step that decides on it before the next task.
   */
  async add(task: StepTask<R>): Promise<{ result: Promise<R> }> {
    const result = (await begin(this.workdir, task, !this.markersAtEnd, this.batch))();
    // Awaited in `results` with the others; a failure meanwhile must not go unhandled.
    result.catch(() => undefined);
    this.pending.push(result);
    return { result };
  }

  /** The results of the tasks given so far, in the order given, once every one is done (and its marker durable). */
  async results(): Promise<R[]> {
    this.batch.end();
    const results = await Promise.all(this.pending);
    if (this.markersAtEnd && this.workdir !== null) await markersDurable(this.workdir);
    return results;
  }
}

/**
 * A task begun: started (resolves once under way, as its `start` does) with its marker
 * written after it completes (and its unsynced files are durable: in `batch` when given), or,
 * when its marker is in place, its `load` deferred until asked for. Gives its completion.
 */
async function begin<R>(workdir: string | null, task: StepTask<R>, durable = true, batch?: MarkerBatch): Promise<() => Promise<R>> {
  if (workdir !== null && existsSync(markerFile(workdir, task.marker))) return () => task.load();
  const { result } = await task.start();
  const done = result.then(async (r) => {
    if (workdir === null) return r;
    const mark = async () => {
      await writeMarker(workdir, task.marker, task.stats(r), durable);
      killPoint(`marker:${task.marker}`);
    };
    const files = task.unsynced ?? [];
    if (files.length === 0) await mark();
    else if (batch !== undefined) await batch.add(files, mark);
    else {
      await syncFiles(files);
      await mark();
    }
    return r;
  });
  // Awaited in its turn; a failure meanwhile must not go unhandled.
  done.catch(() => undefined);
  return () => done;
}

/**
 * Runs a step's tasks in order, at most as many at once as their `start` admits (TaskRunner).
 * Results come in task order.
 */
export async function runTasks<R>(workdir: string | null, tasks: AsyncIterable<StepTask<R>> | Iterable<StepTask<R>>): Promise<R[]> {
  const runner = new TaskRunner<R>(workdir);
  for await (const task of tasks) await runner.add(task);
  return runner.results();
}

/**
 * runTasks for results too large to hold together: each is handed to `consume` in task order
 * and dropped, with at most `window` results (started or to be loaded) waiting ahead of it;
 * a finished task is loaded only when its turn comes.
 */
export async function consumeTasks<R>(
  workdir: string | null,
  tasks: AsyncIterable<StepTask<R>> | Iterable<StepTask<R>>,
  consume: (result: R) => void | Promise<void>,
  window = Infinity,
): Promise<void> {
  const pending: (() => Promise<R>)[] = [];
  const next = async () => consume(await pending.shift()!());
  for await (const task of tasks) {
    pending.push(await begin(workdir, task));
    while (pending.length > window) await next();
  }
  while (pending.length > 0) await next();
}

/** `load` of a task whose result is the statistics its marker holds. */
export function markerStats<R>(workdir: string, marker: string): () => Promise<R> {
  return async () => (await readMarker<R>(workdir, marker)) as R;
}

/** Runs a step made of one task whose result is what its marker records (vocabulary, merge), or loads it. */
export async function runWholeTask<R>(workdir: string, marker: string, work: () => Promise<R>): Promise<R> {
  const [result] = await runTasks(workdir, [{ marker, start: async () => ({ result: work() }), load: markerStats<R>(workdir, marker), stats: (r) => r }]);
  return result;
}
