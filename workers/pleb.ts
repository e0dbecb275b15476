import { asTask } from "../src/executor/task-result.js";
import { shardCountRows } from "../src/features/count-rows.js";
import { computeKeys, beamScanRange, rankRange, scatterRange, sortedOrder } from "../src/pleb/pleb-tasks.js";

export const keys = asTask(computeKeys);
export const order = asTask(sortedOrder);
export const scan = asTask(beamScanRange);
export const rank = asTask(rankRange);
export const scatter = asTask(scatterRange);
export const countRows = asTask(shardCountRows);
