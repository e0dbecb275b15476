import { workerEntry } from "../executor/worker-entry.js";
import * as plebWorker from "./pleb-worker.js";

export type PlebTasks = typeof plebWorker;

/** The PLEB workers: the iterations' sort keys, orders and scans, and the verifier's count rows. */
export const PLEB_WORKERS = workerEntry<PlebTasks>("pleb", plebWorker);
