import { asTask } from "../src/executor/task-result.js";
import { cosineBlock } from "../src/eval/exact/cosine-block.js";
import { hammingRows } from "../src/eval/exact/hamming-task.js";
import { sampledVectors, sampleScores as scoreSample } from "../src/eval/exact/sample-cosine.js";

export const cosine = asTask(cosineBlock);
export const hamming = asTask(hammingRows);
export const sampleVectors = asTask(sampledVectors);
export const sampleScores = asTask(scoreSample);
