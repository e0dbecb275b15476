import { asTask } from "../src/coordinator/task-result.js";
import { cosineBlock } from "../src/exact/cosine-block.js";
import { hammingRows } from "../src/exact/hamming-task.js";

export const cosine = asTask(cosineBlock);
export const hamming = asTask(hammingRows);
