import { growableU32 } from "../util/typed-arrays.js";
import { encodeKeys, inRange, readSegment, type KeyRange, type KeySegment } from "./ngram-index.js";
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

/** The keys of `segments` in `range` that the bucket has too, read a frame at a time: at most the bucket's own keys are held. */
function knownKeys(parts: Iterable<RecordPart>, segments: readonly KeySegment[], range: KeyRange, expected: number): Uint32Array {
  const own = new KeySet(expected);
  // A bit per low lane's top bits, about 8 per key: most index keys are not the bucket's, and
  // this small map (in cache, unlike the table) turns them away before a probe of the table.
  const filterBits = Math.min(24, Math.max(10, Math.ceil(Math.log2(expected * 8))));
  const filter = new Uint32Array(1 << (filterBits - 5));
  const shift = 32 - filterBits;
  for (const { data } of parts) {
    for (let i = 0; i < data.length; i += OCC_WORDS) {
      own.seen(data[i], data[i + 1]);
      const b = data[i] >>> shift;
      filter[b >>> 5] |= 1 << (b & 31);
    }
  }
  const found = growableU32(1024);
  for (const segment of segments) {
    for (const { lo, hi } of readSegment(segment)) {
      for (let i = 0; i < lo.length; i++) {
        const b = lo[i] >>> shift;
        if ((filter[b >>> 5] & (1 << (b & 31))) !== 0 && inRange(hi[i], range) && own.has(lo[i], hi[i])) found.push2(lo[i], hi[i]);
      }
    }
  }
  return found.view();
}

/** The sorted keys `all` without the (unsorted) keys `drop`, which `all` holds. */
function without(all: Uint32Array, drop: Uint32Array): Uint32Array {
  if (drop.length === 0) return all;
  const gone = new KeySet(drop.length / 2);
  for (let i = 0; i < drop.length; i += 2) gone.seen(drop[i], drop[i + 1]);
  const out = new Uint32Array(all.length);
  let n = 0;
  for (let i = 0; i < all.length; i += 2) {
    if (gone.has(all[i], all[i + 1])) continue;
    out[n++] = all[i];
    out[n++] = all[i + 1];
  }
  return out.subarray(0, n);
}

/**
 * The repeats task of one bucket, whichever way the coordinator kept its occurrences. With
 * saved indices, the bucket's keys that they hold are put in the table first, so that their
 * occurrences count as repeated: what one run over the indices' corpora and then this one
 * would find.
 */
export function bucketRepeats(task: RepeatsTask): RepeatsResult {
  const s = task.source;
  const parts = () => ("parts" in s ? s.parts : readRecords(s.path, OCC_WORDS));
  const known = task.known.length === 0 ? new Uint32Array(0) : knownKeys(parts(), task.known, s.range, task.expected);
  const keys = new KeySet(task.expected);
  for (let i = 0; i < known.length; i += 2) keys.seen(known[i], known[i + 1]);
  const repeats = findRepeats(parts(), task.expected, keys);
  if (!task.all && !task.fresh) return { repeats };
  // Taken out of the table before `without` reuses it.
  const all = keys.sorted();
  return { repeats, all: task.all ? encodeKeys(all) : undefined, fresh: task.fresh ? encodeKeys(without(all, known)) : undefined };
}
