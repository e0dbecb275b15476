import { asTask } from "../src/coordinator/task-result.js";
import { cosineBlock } from "../src/reference/cosine-block.js";
import { hammingRows } from "../src/reference/hamming-task.js";
import { sampledVectors, sampleScores as scoreSample } from "../src/reference/sample-cosine.js";

export const cosine = asTask(cosineBlock);
export const hamming = asTask(hammingRows);
export const sampleVectors = asTask(sampledVectors);
export const sampleScores = asTask(scoreSample);
