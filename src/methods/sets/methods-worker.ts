import { asTask } from "../../executor/task-result.js";
import { exactShard } from "../exact/exact.js";
import { minhashShard } from "../minhash/minhash.js";
import { extractSets, verifyPairs } from "../minhash/sets.js";
import { paragraphShard } from "../paragraph-sets/paragraph-sets.js";
import { sampleJaccards as scoreSampleSets, sampleSets as pickSampleSets } from "./sample-jaccard.js";
import { sampleTermCosines as scoreSampleTerms, sampleTermVectors as pickSampleTerms } from "./sample-term-cosine.js";
import { simhashShard } from "../simhash384/simhash384.js";

// The task table of the methods entry (workers/methods.ts): Piscina runs the export a task names.
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
