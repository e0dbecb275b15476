import { concatU32 } from "../util/typed-arrays.js";
import { encodeKeyFrames } from "./key-frames.js";
import { markKnown, type KeyRange, type KeySegment } from "./ngram-index.js";
import { OCC_WORDS } from "./occurrences.js";
import { readRecords, type RecordPart } from "./record-file.js";
import { findRepeats, KeySet } from "./repeats.js";

/**
 * The occurrences of one bucket: in shared memory (memory mode), or a run file of records
 * (external mode) that holds the keys whose high lane starts with the bucket's bits — the
 * top BUCKET_BITS, then SPLIT_BITS more per `level` of splitting (bucket-split.ts). `range`
 * says which keys those are.
 */
export type BucketSource = ({ parts: RecordPart[]; count: number } | { path: string; count: number; level: number }) & { range: KeyRange };

export interface RepeatsTask {
  source: BucketSource;
  /** Keys the table is first sized for. */
  expected: number;
  /** Key segments of saved indices (`--against`) whose range overlaps the bucket's: their keys were seen before it. */
  known: KeySegment[];
  /** Return the bucket's keys: all of them (for the run's own index), and those not in `known` (`--update`). */
  all: boolean;
  fresh: boolean;
}

export interface RepeatsResult {
  /** Repeated occurrences (findRepeats). */
  repeats: Uint32Array;
  /** The keys asked for, encoded as index segments (encodeKeys). */
  all?: Uint8Array;
  fresh?: Uint8Array;
}

/** The keys of `sorted` (pairs) whose mark in `found` is `mark`, in order. */
function marked(sorted: Uint32Array, found: Uint8Array, mark: number): Uint32Array {
  const out = new Uint32Array(sorted.length);
  let n = 0;
  for (let k = 0; k < found.length; k++) {
    if (found[k] !== mark) continue;
    out[n++] = sorted[2 * k];
    out[n++] = sorted[2 * k + 1];
  }
  return out.subarray(0, n);
}

/**
 * The repeats task of one bucket, whichever way the coordinator kept its occurrences. With
 * saved indices, every occurrence of a key they hold counts as repeated, the bucket's first
 * too: what one run over the indices' corpora and then this one would find. The bucket's own
 * repeats come first, as without indices, leaving its distinct keys in the table; those,
 * sorted, are merged with the indices' sorted segments frame by frame (markKnown: no table
 * probe per index key, at most the bucket's keys and one frame held); then one more pass adds
 * the occurrences of the keys found, looked up in a table of those alone (small, in cache).
 * An occurrence both passes name sets its bit twice (repeated-ends.ts), which is the same.
 */
export function bucketRepeats(task: RepeatsTask): RepeatsResult {
  const s = task.source;
  const parts = () => ("parts" in s ? s.parts : readRecords(s.path, OCC_WORDS));
  const keys = new KeySet(task.expected);
  const repeats = findRepeats(parts(), task.expected, keys);
  if (task.known.length === 0) {
    if (!task.all && !task.fresh) return { repeats };
    const all = keys.sorted();
    return { repeats, all: task.all ? encodeKeyFrames(all) : undefined, fresh: task.fresh ? encodeKeyFrames(all) : undefined };
  }
  const all = keys.sorted();
  const found = new Uint8Array(all.length / 2);
  for (const segment of task.known) markKnown(segment, all, found);
  const known = marked(all, found, 1);
  // The bucket's table is done with: the set of the keys found takes the thread's table.
  const indexKeys = new KeySet(known.length / 2);
  for (let i = 0; i < known.length; i += 2) indexKeys.seen(known[i], known[i + 1]);
  const ofIndex = known.length === 0 ? new Uint32Array(0) : findRepeats(parts(), known.length / 2, indexKeys, false);
  return {
    repeats: concatU32([repeats, ofIndex]),
    all: task.all ? encodeKeyFrames(all) : undefined,
    fresh: task.fresh ? encodeKeyFrames(marked(all, found, 0)) : undefined,
  };
}
