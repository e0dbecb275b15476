import { asTask } from "../../executor/task-result.js";
import { cosineBlock } from "./cosine-block.js";
import { hammingRows } from "./hamming-task.js";
import { sampledVectors, sampleScores as scoreSample } from "./sample-cosine.js";

// The task table of the reference entry (workers/reference.ts): Piscina runs the export a task names.
export const cosine = asTask(cosineBlock);
export const hamming = asTask(hammingRows);
export const sampleVectors = asTask(sampledVectors);
export const sampleScores = asTask(scoreSample);
