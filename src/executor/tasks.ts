import { existsSync } from "node:fs";
import { killPoint } from "../util/kill-point.js";
import { markerFile, readMarker, writeMarker } from "../coordinator/workdir.js";

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
}

/**
 * The executor of one step's tasks, given one at a time (by a step that learns its tasks
 * while it runs, as the count step does while cutting the corpus): a task whose marker is in
 * place is not run again but loaded (resume); every other one leaves its marker once its
 * files are in place. Only the executor writes task markers, always on the coordinator,
 * after the task's worker has returned (its files are durable by then: util/atomic.ts).
 */
export class TaskRunner<R> {
  private readonly pending: Promise<R>[] = [];

  constructor(private readonly workdir: string) {}

  /**
   * Runs or loads a task; resolves once it is under way, as its `start` does, with its
   * completion (its marker in place) for a step that decides on it before the next task.
   */
  async add(task: StepTask<R>): Promise<{ result: Promise<R> }> {
    const result = existsSync(markerFile(this.workdir, task.marker)) ? task.load() : (await this.run(task)).result;
    // Awaited in `results` with the others; a failure meanwhile must not go unhandled.
    result.catch(() => undefined);
    this.pending.push(result);
    return { result };
  }

  /** Starts a task; its completion includes its marker (wrapped: `await` would wait for it). */
  private async run(task: StepTask<R>): Promise<{ result: Promise<R> }> {
    const { result } = await task.start();
    const marked = result.then(async (r) => {
      await writeMarker(this.workdir, task.marker, task.stats(r));
      killPoint(`marker:${task.marker}`);
      return r;
    });
    return { result: marked };
  }

  /** The results of the tasks given so far, in the order given, once every one is done. */
  results(): Promise<R[]> {
    return Promise.all(this.pending);
  }
}

/**
 * Runs a step's tasks in order, at most as many at once as their `start` admits (TaskRunner).
 * Results come in task order.
 */
export async function runTasks<R>(workdir: string, tasks: AsyncIterable<StepTask<R>> | Iterable<StepTask<R>>): Promise<R[]> {
  const runner = new TaskRunner<R>(workdir);
  for await (const task of tasks) await runner.add(task);
  return runner.results();
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
