import { OCC_WORDS } from "./occurrences.js";
import type { RecordPart } from "./record-file.js";
import { sortOrder } from "../util/radix-order.js";

let spare = new Uint32Array(0);

/**
 * Open addressing over (lo, hi) keys; (0, 0) marks an empty slot, its own key is kept apart.
 * A thread has one live KeySet at a time: every KeySet of a worker shares its table.
 */
export class KeySet {
  private table: Uint32Array;
  private mask: number;
  private size = 0;
  private zeroSeen = false;

  constructor(expected: number) {
    let capacity = 16;
    while (capacity < expected * 2) capacity *= 2;
    // One table per worker, cleared for each bucket: no large allocation per task.
    if (spare.length < capacity * 2) spare = new Uint32Array(capacity * 2);
    this.table = spare.subarray(0, capacity * 2);
    this.table.fill(0);
    this.mask = capacity - 1;
  }

  /** Whether the key is in the set (without adding it). */
  has(lo: number, hi: number): boolean {
    if (lo === 0 && hi === 0) return this.zeroSeen;
    const table = this.table;
    for (let slot = lo & this.mask; ; slot = (slot + 1) & this.mask) {
      if (table[slot * 2] === lo && table[slot * 2 + 1] === hi) return true;
      if (table[slot * 2] === 0 && table[slot * 2 + 1] === 0) return false;
    }
  }

  /** The keys, sorted by (hi, lo) unsigned, as `lo, hi` pairs. */
  sorted(): Uint32Array {
    const n = this.size + (this.zeroSeen ? 1 : 0);
    const out = new Uint32Array(2 * n);
    let k = this.zeroSeen ? 2 : 0;
    for (let i = 0; i < this.table.length; i += 2) {
      if (this.table[i] === 0 && this.table[i + 1] === 0) continue;
      out[k++] = this.table[i];
      out[k++] = this.table[i + 1];
    }
    sortPairs(out, 0, n, new Uint32Array(2 * n));
    return out;
  }

  /** Adds the key; true when it was there already. */
  seen(lo: number, hi: number): boolean {
    if (lo === 0 && hi === 0) {
      const was = this.zeroSeen;
      this.zeroSeen = true;
      return was;
    }
    const table = this.table;
    const mask = this.mask;
    let slot = lo & mask;
    for (;;) {
      const tl = table[slot * 2];
      const th = table[slot * 2 + 1];
      if (tl === lo && th === hi) return true;
      if (tl === 0 && th === 0) break;
      slot = (slot + 1) & mask;
    }
    table[slot * 2] = lo;
    table[slot * 2 + 1] = hi;
    if (++this.size * 2 > this.mask + 1) this.grow();
    return false;
  }

  // Only a bucket that cannot be split further (one n-gram repeated very often) outgrows its start.
  private grow(): void {
    const old = this.table.slice();
    if (spare.length < old.length * 2) spare = new Uint32Array(old.length * 2);
    this.table = spare.subarray(0, old.length * 2);
    this.table.fill(0);
    this.mask = this.table.length / 2 - 1;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] === 0 && old[i + 1] === 0) continue;
      let slot = old[i] & this.mask;
      while (this.table[slot * 2] !== 0 || this.table[slot * 2 + 1] !== 0) slot = (slot + 1) & this.mask;
      this.table[slot * 2] = old[i];
      this.table[slot * 2 + 1] = old[i + 1];
    }
  }
}

/** Ranges this small are sorted by insertion. */
const INSERTION_MAX = 32;
/**
 * Bins of one spreading pass: up to 2^16 (one pass to about 4 keys a bin, its counters in
 * cache); a larger range goes first to 2^11 bins, whose write positions stay in cache.
 */
const FINAL_BIN_BITS = 16;
const SPREAD_BIN_BITS = 11;

/**
 * Sorts the `lo, hi` pairs from pair `from` to pair `to` of `pairs` by (hi, lo) unsigned, in
 * place (`tmp`: as long as `pairs`). The keys are uniform hashes: a counting pass spreads them
 * over bins by their high lanes' top varying bits, about 4 keys a bin at the last level, and
 * each bin is sorted the same way. A general LSD radix sort (sortOrder) made 6
 * passes of scattered reads, which for the large tables of a big corpus cost more than the
 * repeats search itself (README "Resuming an interrupted run").
 */
function sortPairs(pairs: Uint32Array, from: number, to: number, tmp: Uint32Array): void {
  const n = to - from;
  if (n <= INSERTION_MAX) {
    for (let i = from + 1; i < to; i++) {
      const l = pairs[2 * i];
      const h = pairs[2 * i + 1];
      let j = i - 1;
      for (; j >= from && (pairs[2 * j + 1] > h || (pairs[2 * j + 1] === h && pairs[2 * j] > l)); j--) {
        pairs[2 * j + 2] = pairs[2 * j];
        pairs[2 * j + 3] = pairs[2 * j + 1];
      }
      pairs[2 * j + 2] = l;
      pairs[2 * j + 3] = h;
    }
    return;
  }
  let min = 0xffffffff;
  let max = 0;
  for (let i = from; i < to; i++) {
    const h = pairs[2 * i + 1];
    if (h < min) min = h;
    if (h > max) max = h;
  }
  if (min === max) {
    // One high lane (not met with hashes): by the low lanes.
    const lo = new Uint32Array(n);
    for (let i = 0; i < n; i++) lo[i] = pairs[2 * (from + i)];
    const order = sortOrder(new Uint32Array(n), lo, n);
    for (let i = 0; i < n; i++) pairs[2 * (from + i)] = lo[order[i]];
    return;
  }
  const span = (max - min) >>> 0;
  const last = Math.max(1, Math.ceil(Math.log2(n / 4)));
  const binBits = last <= FINAL_BIN_BITS ? last : SPREAD_BIN_BITS;
  const shift = Math.max(0, 32 - Math.clz32(span) - binBits);
  // At least two bins (min's and max's differ): every bin is smaller than the range.
  const bins = (span >>> shift) + 1;
  const start = new Uint32Array(bins + 1);
  for (let i = from; i < to; i++) start[(((pairs[2 * i + 1] - min) >>> 0) >>> shift) + 1]++;
  for (let b = 0; b < bins; b++) start[b + 1] += start[b];
  const at = start.slice(0, bins);
  for (let i = from; i < to; i++) {
    const h = pairs[2 * i + 1];
    const j = 2 * (from + at[((h - min) >>> 0) >>> shift]++);
    tmp[j] = pairs[2 * i];
    tmp[j + 1] = h;
  }
  pairs.set(tmp.subarray(2 * from, 2 * to), 2 * from);
  for (let b = 0; b < bins; b++) sortPairs(pairs, from + start[b], from + start[b + 1], tmp);
}

/**
 * Finds, in one bucket, every occurrence whose key occurred earlier in the corpus (in an
 * earlier chunk, or earlier in the same chunk), given the bucket's parts in corpus order
 * (a chunk may come in several consecutive parts). Keys of different buckets never meet, so
 * buckets are independent tasks. The table holds each distinct key once, 8 bytes at a load of
 * at most 1/2, sized for `expected` keys (the bucket's occurrences, which the coordinator keeps
 * under its budget by splitting buckets). Returns records `chunk, words, end × words`
 * (record-file.ts; `end` as in occurrences.ts), one per chunk with repeats: one buffer,
 * however many chunks.
 *
 * `keys` may hold keys seen before the bucket's first occurrence: their occurrences all count
 * as repeated. It ends holding every key of the bucket, unless `add` is false: then only the
 * occurrences of the keys it holds are returned (those of saved indices, bucket-task.ts).
 */
export function findRepeats(parts: Iterable<RecordPart>, expected: number, keys = new KeySet(expected), add = true): Uint32Array {
  let out = new Uint32Array(1024);
  let used = 0;
  let header = -1;
  let chunk = -1;
  const room = (words: number) => {
    if (used + words <= out.length) return;
    const grown = new Uint32Array(Math.max(out.length * 2, used + words));
    grown.set(out.subarray(0, used));
    out = grown;
  };
  const finish = () => {
    if (header >= 0 && used === header + 2) used = header;
    else if (header >= 0) out[header + 1] = used - header - 2;
    header = -1;
  };
  for (const part of parts) {
    if (part.chunk !== chunk) {
      finish();
      chunk = part.chunk;
      room(2);
      header = used;
      out[used++] = chunk;
      out[used++] = 0;
    }
    const occ = part.data;
    room(occ.length / OCC_WORDS);
    if (add) {
      for (let i = 0; i < occ.length; i += OCC_WORDS) if (keys.seen(occ[i], occ[i + 1])) out[used++] = occ[i + 2];
    } else {
      for (let i = 0; i < occ.length; i += OCC_WORDS) if (keys.has(occ[i], occ[i + 1])) out[used++] = occ[i + 2];
    }
  }
  finish();
  return out.slice(0, used);
}
