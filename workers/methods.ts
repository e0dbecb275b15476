import { asTask } from "../src/executor/task-result.js";
import { exactShard } from "../src/methods/exact/exact.js";
import { minhashShard } from "../src/methods/minhash/minhash.js";
import { extractSets, verifyPairs } from "../src/methods/minhash/sets.js";
import { paragraphShard } from "../src/methods/paragraph-sets/paragraph-sets.js";
import { sampleJaccards as scoreSampleSets, sampleSets as pickSampleSets } from "../src/methods/sets/sample-jaccard.js";
import { sampleTermCosines as scoreSampleTerms, sampleTermVectors as pickSampleTerms } from "../src/methods/sets/sample-term-cosine.js";
import { simhashShard } from "../src/methods/simhash384/simhash384.js";

export const exact = asTask(exactShard);
export const simhash384 = asTask(simhashShard);
export const minhash = asTask(minhashShard);
export const paragraphs = asTask(paragraphShard);
export const extract = asTask(extractSets);
export const verify = asTask(verifyPairs);
export const sampleSets = asTask(pickSampleSets);
export const sampleJaccards = asTask(scoreSampleSets);
export const sampleTermVectors = asTask(pickSampleTerms);
export const sampleTermCosines = asTask(scoreSampleTerms);
