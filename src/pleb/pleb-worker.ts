import { asTask } from "../executor/task-result.js";
import { computeKeys, beamScanRange, rankRange, scatterRange, sortedOrder } from "./pleb-tasks.js";

// The task table of the pleb entry (workers/pleb.ts): Piscina runs the export a task names.
export * from "../features/count-rows-tasks.js";
export const keys = asTask(computeKeys);
export const order = asTask(sortedOrder);
export const scan = asTask(beamScanRange);
export const rank = asTask(rankRange);
export const scatter = asTask(scatterRange);
