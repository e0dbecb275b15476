import { asTask } from "../executor/task-result.js";
import { splitBucket } from "./bucket-split.js";
import { bucketRepeats } from "./bucket-task.js";
import { occurrencesTask } from "./occurrences.js";
import { renderChunk } from "./render.js";

/** The tasks of `vertdup paragraphs`, by name: run by the workers (paragraphs-worker.ts) or in process. */
export const paragraphTasks = {
  occurrences: asTask(occurrencesTask),
  split: asTask(splitBucket),
  repeats: asTask(bucketRepeats),
  render: asTask(renderChunk),
};
