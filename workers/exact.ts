import { asTask } from "../src/coordinator/task-result.js";
import { cosineBlock } from "../src/exact/cosine-block.js";
import { hammingRows } from "../src/exact/hamming-task.js";
import { sampledVectors, sampleScores as scoreSample } from "../src/exact/sample-cosine.js";

export const cosine = asTask(cosineBlock);
export const hamming = asTask(hammingRows);
export const sampleVectors = asTask(sampledVectors);
export const sampleScores = asTask(scoreSample);
