import type { TaskResult } from "./task-result.js";

declare const TASKS: unique symbol;

/**
 * A worker entry point (workers/<name>.ts) typed by its task table: the type of the module
 * whose exported functions the entry re-exports. At run time it is just the name; the table
 * is a type only, so a call site that names an entry loads none of its tasks' code.
 */
export type WorkerEntry<T> = string & { readonly [TASKS]?: T };

export function workerEntry<T>(name: string): WorkerEntry<T> {
  return name as WorkerEntry<T>;
}

/** The task names of a table. */
export type TaskName<T> = keyof T & string;

/** What a task takes. */
export type TaskArg<F> = F extends (arg: infer A) => unknown ? A : never;

/** What a task's caller gets: the value inside its TaskResult. */
export type TaskValue<F> = F extends (arg: never) => Promise<TaskResult<infer V>> ? V : never;
