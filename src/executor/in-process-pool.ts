import { VertdupError } from "../core/errors.js";
import type { WorkerPool } from "./pool.js";
import type { TaskResult } from "./task-result.js";
import type { TaskArg, TaskName, TaskValue } from "./worker-entry.js";

/** What a step needs of a pool over the task table `T`: the worker pool or the in-process one. */
export type TaskPool<T> = Pick<WorkerPool<T>, "limit" | "threads" | "run" | "submit" | "close">;

/**
 * The tasks of a worker entry run in this thread, one at a time, with no thread to start:
 * for inputs too small to repay a pool's start-up (each thread loads the modules anew). It
 * takes the same calls as WorkerPool (buffers to transfer are simply shared), so a step does
 * not know which one runs it, and a user error comes back as the same VertdupError.
 */
export class InProcessPool<T> implements TaskPool<T> {
  readonly limit = 1;
  readonly threads = 1;

  constructor(private readonly tasks: T) {}

  async run<K extends TaskName<T>>(name: K, task: TaskArg<T[K]>): Promise<TaskValue<T[K]>> {
    return (await this.submit(name, task)).result;
  }

  /** Runs the task before it returns (a producer then cannot queue input ahead of the work). */
  async submit<K extends TaskName<T>>(name: K, task: TaskArg<T[K]>): Promise<{ result: Promise<TaskValue<T[K]>> }> {
    const run = this.tasks[name] as (arg: TaskArg<T[K]>) => Promise<TaskResult<TaskValue<T[K]>>>;
    const result = run(task).then((r) => {
      if (!r.ok) throw new VertdupError(r.message);
      return r.value;
    });
    result.catch(() => undefined); // observed by the caller; avoids an unhandled rejection meanwhile
    return { result };
  }

  async close(): Promise<void> {}
}
