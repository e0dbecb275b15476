import { unlinkSync } from "node:fs";
import { BUCKET_BITS, OCC_WORDS } from "./occurrences.js";
import { readRecords, RecordWriter } from "./record-file.js";

export const SPLIT_BITS = 4;
export const SPLIT_WAYS = 1 << SPLIT_BITS;
/** Deeper than this the high lane has no bits left to split by. */
export const MAX_SPLIT_LEVEL = (32 - BUCKET_BITS) / SPLIT_BITS;

// Reused by every split of a worker: write buffers of the parts, and the sorted part. Made at
// the first split, not at import: most runs never split (and may run in the main thread).
let buffers: Uint32Array<ArrayBuffer>[] = [];
let sorted = new Uint32Array(0);

export interface SplitTask {
  path: string;
  level: number;
  /** SPLIT_WAYS paths for the parts, by the next SPLIT_BITS bits of the high lane. */
  children: string[];
}

/**
 * Splits a run file that holds more occurrences than one table may into SPLIT_WAYS run
 * files, streaming (corpus order is kept inside each), and removes it; returns the
 * occurrences in each part.
 */
export function splitBucket(task: SplitTask): number[] {
  const shift = 32 - BUCKET_BITS - SPLIT_BITS * (task.level + 1);
  if (buffers.length === 0) buffers = Array.from({ length: SPLIT_WAYS }, () => new Uint32Array(64 << 10));
  const writers = task.children.map((path, k) => new RecordWriter(path, buffers[k]));
  const counts = new Array<number>(SPLIT_WAYS).fill(0);
  const start = new Uint32Array(SPLIT_WAYS + 1);
  try {
    for (const { chunk, data } of readRecords(task.path, OCC_WORDS)) {
      // A counting sort of the part by child; each child gets one record.
      start.fill(0);
      for (let i = 1; i < data.length; i += OCC_WORDS) start[((data[i] >>> shift) & (SPLIT_WAYS - 1)) + 1] += OCC_WORDS;
      for (let k = 1; k <= SPLIT_WAYS; k++) start[k] += start[k - 1];
      if (sorted.length < data.length) sorted = new Uint32Array(data.length);
      const at = start.slice();
      for (let i = 0; i < data.length; i += OCC_WORDS) {
        const k = (data[i + 1] >>> shift) & (SPLIT_WAYS - 1);
        const to = at[k];
        sorted[to] = data[i];
        sorted[to + 1] = data[i + 1];
        sorted[to + 2] = data[i + 2];
        at[k] = to + OCC_WORDS;
      }
      for (let k = 0; k < SPLIT_WAYS; k++) {
        if (start[k + 1] === start[k]) continue;
        writers[k].add(chunk, sorted.subarray(start[k], start[k + 1]));
        counts[k] += (start[k + 1] - start[k]) / OCC_WORDS;
      }
    }
  } finally {
    for (const w of writers) w.close();
  }
  unlinkSync(task.path);
  return counts;
}
