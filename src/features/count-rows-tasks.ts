import { asTask } from "../executor/task-result.js";
import { shardCountRows } from "./count-rows.js";

// The count rows' task: the part of the pleb entry's table (pleb/pleb-worker.ts) below the pleb layer.
export const countRows = asTask(shardCountRows);
