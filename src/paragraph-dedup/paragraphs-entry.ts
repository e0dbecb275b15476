import { workerEntry } from "../executor/worker-entry.js";
import { paragraphTasks } from "./tasks.js";
import type * as paragraphsWorker from "./paragraphs-worker.js";

export type ParagraphTasks = typeof paragraphsWorker;

/** The paragraphs workers; in this thread (small inputs), the same tasks without the moves of their results (tasks.ts). */
export const PARAGRAPHS_WORKERS = workerEntry<ParagraphTasks>("paragraphs", paragraphTasks);
