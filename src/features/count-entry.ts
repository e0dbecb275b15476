import { workerEntry } from "../executor/worker-entry.js";
import * as countTasks from "./count-tasks.js";

export type CountTasks = typeof countTasks;

/**
 * The prepare workers (sketch/prepare-entry.ts) as the count step sees them: by the part of
 * their table below the sketch layer. Same name, so a step context gives both the same pool.
 */
export const COUNT_WORKERS = workerEntry<CountTasks>("prepare", countTasks);
