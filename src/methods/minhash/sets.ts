import { join } from "node:path";
import { shardName } from "../../workdir/layout.js";
import { writeScratchSync } from "../../util/atomic.js";
import { sortedJaccard, sortUnique } from "../sets/jaccard.js";
import { readSets } from "./minhash.js";

/**
 * Worker tasks of minhash verification. A shard's sets file is read once, by `extractSets`,
 * which keeps the sets of the shard's candidate documents only, sorted and without repeats,
 * as raw float64 in an extract file; the coordinator reads extracts into shared memory
 * blocks, and `verifyPairs` computes exact Jaccard there without copying a set.
 */

/** Raw float64 values of a shard's extracted sets, one after another in document order. */
export function extractFile(workdir: string, shard: number): string {
  return join(workdir, "methods", `${shardName(shard)}.extract.f64`);
}

export interface ExtractTask {
  workdir: string;
  shard: number;
  /** The shard's sets file. */
  sets: string;
  /** Shard-local indexes of the candidate documents, increasing. */
  docs: Uint32Array;
}

/** Extract task: writes the shard's extract file; returns the size of each extracted set. */
export function extractSets(task: ExtractTask): Uint32Array {
  const { lengths, values } = readSets(task.sets);
  const starts = new Float64Array(lengths.length + 1);
  for (let i = 0; i < lengths.length; i++) starts[i + 1] = starts[i] + lengths[i];
  const sizes = new Uint32Array(task.docs.length);
  const out = new Float64Array(task.docs.reduce((n, d) => n + lengths[d], 0));
  let at = 0;
  task.docs.forEach((doc, i) => {
    const set = out.subarray(at, at + lengths[doc]);
    set.set(values.subarray(starts[doc], starts[doc + 1]));
    sizes[i] = sortUnique(set);
    at += sizes[i];
  });
  const bytes = out.subarray(0, at);
  writeScratchSync(extractFile(task.workdir, task.shard), new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return sizes;
}

/** Sorted sets in (shared) memory: set i is values[starts[i], starts[i + 1]). */
export interface SetBlock {
  values: Float64Array;
  starts: Float64Array;
}

export interface VerifyTask {
  a: SetBlock;
  b: SetBlock;
  /** Candidate pairs, flat: index in a, index in b, … */
  pairs: Uint32Array;
}

/** Verify task: the exact Jaccard of every candidate pair. */
export function verifyPairs(task: VerifyTask): Float64Array {
  const { a, b, pairs } = task;
  const out = new Float64Array(pairs.length / 2);
  for (let k = 0; k < out.length; k++) {
    const i = pairs[2 * k];
    const j = pairs[2 * k + 1];
    out[k] = sortedJaccard(a.values, a.starts[i], a.starts[i + 1], b.values, b.starts[j], b.starts[j + 1]);
  }
  return out;
}
