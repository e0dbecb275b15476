import { asTask } from "../src/coordinator/task-result.js";
import { shardCountRows } from "../src/exact/count-rows.js";
import { computeKeys, scanChunk } from "../src/pleb/pleb-tasks.js";

export const keys = asTask(computeKeys);
export const scan = asTask(scanChunk);
export const countRows = asTask(shardCountRows);
