import { workerEntry } from "../executor/worker-entry.js";
import * as prepareWorker from "./prepare-worker.js";

export type PrepareTasks = typeof prepareWorker;

/** The prepare workers: counting, linking and signing chunks. */
export const PREPARE_WORKERS = workerEntry<PrepareTasks>("prepare", prepareWorker);
