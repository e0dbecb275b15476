import type { TaskResult } from "./task-result.js";

/**
 * A worker entry point (workers/<name>.ts) and its task table: the module whose exported
 * functions the entry re-exports. A worker thread loads the entry's file by its name; a pool
 * that runs the tasks in this thread (InProcessPool, small inputs) calls the table. Only the
 * steps that run an entry's tasks import it (a static import: a dynamic one would cut the
 * bundle into more files, scripts/bundle-cli.mjs).
 */
export interface WorkerEntry<T> {
  readonly name: string;
  readonly tasks: T;
}

export function workerEntry<T>(name: string, tasks: T): WorkerEntry<T> {
  return { name, tasks };
}

/** The task names of a table. */
export type TaskName<T> = keyof T & string;

/** What a task takes. */
export type TaskArg<F> = F extends (arg: infer A) => unknown ? A : never;

/** What a task's caller gets: the value inside its TaskResult. */
export type TaskValue<F> = F extends (arg: never) => Promise<TaskResult<infer V>> ? V : never;
