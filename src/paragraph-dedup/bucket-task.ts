import { OCC_WORDS } from "./occurrences.js";
import { readRecords, type RecordPart } from "./record-file.js";
import { findRepeats } from "./repeats.js";

/**
 * The occurrences of one bucket: in shared memory (memory mode), or a run file of records
 * (external mode) that holds the keys whose high lane starts with the bucket's bits — the
 * top BUCKET_BITS, then SPLIT_BITS more per `level` of splitting (bucket-split.ts).
 */
export type BucketSource = { parts: RecordPart[]; count: number } | { path: string; count: number; level: number };

export interface RepeatsTask {
  source: BucketSource;
  /** Keys the table is first sized for. */
  expected: number;
}

/** The repeats task of one bucket, whichever way the coordinator kept its occurrences. */
export function bucketRepeats(task: RepeatsTask): Uint32Array {
  const s = task.source;
  return findRepeats("parts" in s ? s.parts : readRecords(s.path, OCC_WORDS), task.expected);
}
