import { workerEntry } from "../../executor/worker-entry.js";
import * as referenceWorker from "./reference-worker.js";

export type ReferenceTasks = typeof referenceWorker;

/** The reference workers: exact cosine and Hamming distance, all pairs or a sample's. */
export const REFERENCE_WORKERS = workerEntry<ReferenceTasks>("reference", referenceWorker);
