import { asTask } from "../src/coordinator/task-result.js";
import { shardRows } from "../src/exact/workdir-vectors.js";
import { computeKeys, scanChunk } from "../src/pleb/pleb-tasks.js";

export const keys = asTask(computeKeys);
export const scan = asTask(scanChunk);
export const rows = asTask(shardRows);
