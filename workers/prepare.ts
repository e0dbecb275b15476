import { asTask } from "../src/executor/task-result.js";
import { linkChunk } from "../src/corpus/chunk-chain.js";
import { countShard } from "../src/features/count-shard.js";
import { fillCache, signShard } from "../src/sketch/sign-shard.js";

export const link = asTask(linkChunk);
export const count = asTask(countShard);
export const sign = asTask(signShard);
export const fill = asTask(fillCache);
