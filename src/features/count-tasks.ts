import { asTask } from "../executor/task-result.js";
import { linkChunk } from "../corpus/chunk-chain.js";
import { countShard } from "./count-shard.js";

// The count step's tasks: the part of the prepare entry's table (sketch/prepare-worker.ts) below the sketch layer.
export const link = asTask(linkChunk);
export const count = asTask(countShard);
