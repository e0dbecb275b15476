import { asTask } from "../executor/task-result.js";
import { fillCache, signShard } from "./sign-shard.js";

// The task table of the prepare entry (workers/prepare.ts): Piscina runs the export a task names.
export * from "../features/count-tasks.js";
export const sign = asTask(signShard);
export const fill = asTask(fillCache);
