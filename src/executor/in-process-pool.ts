import { VertdupError } from "../core/errors.js";
import type { WorkerPool } from "./pool.js";
import type { TaskResult } from "./task-result.js";

/** What a pass needs of a pool: the worker pool or the in-process one. */
export type TaskPool = Pick<WorkerPool, "limit" | "submit" | "close">;

/** A worker entry's tasks as `asTask` wraps them, by name. */
export type TaskTable = Record<string, (arg: never) => Promise<TaskResult<unknown>>>;

/**
 * The tasks of a worker entry run in this thread, one at a time, with no thread to start:
 * for inputs too small to repay a pool's start-up. It takes the same calls as WorkerPool
 * (buffers to transfer are simply shared), so a pass does not know which one runs it, and a
 * user error comes back as the same VertdupError.
 */
export class InProcessPool implements TaskPool {
  readonly limit = 1;

  constructor(private readonly tasks: TaskTable) {}

  async submit<T>(name: string, task: unknown): Promise<{ result: Promise<T> }> {
    const run = this.tasks[name];
    const result = (run(task as never) as Promise<TaskResult<T>>).then((r) => {
      if (!r.ok) throw new VertdupError(r.message);
      return r.value;
    });
    result.catch(() => undefined); // observed by the caller; avoids an unhandled rejection meanwhile
    return { result };
  }

  async close(): Promise<void> {}
}
