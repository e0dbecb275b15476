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
    const lo = new Uint32Array(n);
    const hi = new Uint32Array(n);
    let k = this.zeroSeen ? 1 : 0;
    for (let i = 0; i < this.table.length; i += 2) {
      if (this.table[i] === 0 && this.table[i + 1] === 0) continue;
      lo[k] = this.table[i];
      hi[k++] = this.table[i + 1];
    }
    const order = sortOrder(hi, lo, n);
    const out = new Uint32Array(2 * n);
    for (let i = 0; i < n; i++) {
      out[2 * i] = lo[order[i]];
      out[2 * i + 1] = hi[order[i]];
    }
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
 * `keys` may hold keys seen before the bucket's first occurrence (those of saved indices):
 * their occurrences all count as repeated. It ends holding every key of the bucket.
 */
export function findRepeats(parts: Iterable<RecordPart>, expected: number, keys = new KeySet(expected)): Uint32Array {
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
    for (let i = 0; i < occ.length; i += OCC_WORDS) if (keys.seen(occ[i], occ[i + 1])) out[used++] = occ[i + 2];
  }
  finish();
  return out.slice(0, used);
}
