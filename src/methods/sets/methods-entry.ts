import { workerEntry } from "../../executor/worker-entry.js";
import * as methodsWorker from "./methods-worker.js";

export type MethodsTasks = typeof methodsWorker;

/** The chunk tasks of a set method's features step (the method's own name, SetMethodSpec.features.task). */
export type FeaturesTask = "exact" | "simhash384" | "minhash" | "paragraphs";

/** The set methods' workers: their features, verification and exact references on a sample. */
export const METHODS_WORKERS = workerEntry<MethodsTasks>("methods", methodsWorker);
