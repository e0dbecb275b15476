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
export async function runTasks<R>(workdir: string, tasks: AsyncIterable<StepTask<R>> | Iterable<StepTask<R>>): Promise<R[]> {
  const pending: Promise<R>[] = [];
  for await (const task of tasks) {
    if (existsSync(markerFile(workdir, task.marker))) {
      pending.push(task.load());
      continue;
    }
    const { result } = await task.start();
    const done = result.then(async (r) => {
      await writeMarker(workdir, task.marker, task.stats(r));
      killPoint(`marker:${task.marker}`);
      return r;
    });
    // Awaited below with the others; a failure meanwhile must not go unhandled.
    done.catch(() => undefined);
    pending.push(done);
  }
  return Promise.all(pending);
}
