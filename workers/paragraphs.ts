import { asTask } from "../src/coordinator/task-result.js";
import { bucketRepeats } from "../src/paragraph-dedup/bucket-task.js";
import { chunkOccurrences } from "../src/paragraph-dedup/occurrences.js";
import { renderChunk } from "../src/paragraph-dedup/render.js";

export const occurrences = asTask(chunkOccurrences);
export const repeats = asTask(bucketRepeats);
export const render = asTask(renderChunk);
