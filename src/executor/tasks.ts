import { existsSync } from "node:fs";
import { killPoint } from "../util/kill-point.js";
import { markerFile, writeMarker } from "../coordinator/workdir.js";

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
 * Runs a step's tasks in order, at most as many at once as their `start` admits: a task whose
 * marker is in place is not run again but loaded (resume); every other one leaves its marker
 * once its files are in place. Only the executor writes markers. Results come in task order.
 */
export async function runTasks<R>(workdir: string | null, tasks: AsyncIterable<StepTask<R>> | Iterable<StepTask<R>>): Promise<R[]> {
  const out: R[] = [];
  await consumeTasks(workdir, tasks, (r) => void out.push(r));
  return out;
}

/**
 * runTasks for results too large to hold together: each is handed to `consume` in task order
 * and dropped, with at most `window` results (started or to be loaded) waiting ahead of it;
 * a finished task is loaded only when its turn comes. Without a work directory (null: a run
 * that cannot be resumed) no marker is read or written.
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
    if (workdir !== null && existsSync(markerFile(workdir, task.marker))) {
      pending.push(() => task.load());
    } else {
      const { result } = await task.start();
      const done = result.then(async (r) => {
        if (workdir === null) return r;
        await writeMarker(workdir, task.marker, task.stats(r));
        killPoint(`marker:${task.marker}`);
        return r;
      });
      // Awaited in its turn; a failure meanwhile must not go unhandled.
      done.catch(() => undefined);
      pending.push(() => done);
    }
    while (pending.length > window) await next();
  }
  while (pending.length > 0) await next();
}
