import { workerEntry } from "../executor/worker-entry.js";
import type * as paragraphsWorker from "./paragraphs-worker.js";

export type ParagraphTasks = typeof paragraphsWorker;

/** The paragraphs workers (in process for small inputs: tasks.ts). */
export const PARAGRAPHS_WORKERS = workerEntry<ParagraphTasks>("paragraphs");
